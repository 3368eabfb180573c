internal import CCurl
import Dispatch
import Foundation
import Synchronization
package import HearthKit

/// The HTTP client: libcurl's multi interface driven by one dedicated thread.
///
/// - Many requests are in flight at once; over HTTPS, HTTP/2 is negotiated when the server
///   offers it and requests to one host are multiplexed over one connection
///   (`CURLMOPT_PIPELINING = CURLPIPE_MULTIPLEX`, `CURLOPT_PIPEWAIT`). Connections stay open in
///   the multi handle's cache and are reused by later requests; easy handles are pooled too.
/// - TLS certificate and host-name verification are always on. A private CA is trusted through
///   ``HTTPClientOptions/caFile``; there is deliberately no option to switch verification off.
/// - Redirects are never followed: a 3xx comes back as an ``HTTPResponse``.
/// - `http_proxy`, `https_proxy`, `all_proxy` and `no_proxy` from the environment are honoured
///   (libcurl's default; this client never sets a proxy itself).
/// - Only `http` and `https` URLs are accepted.
///
/// ``send(_:)`` never blocks a thread of the Swift cooperative pool: it queues the request for
/// the curl thread, wakes it with `curl_multi_wakeup`, and suspends until the transfer ends.
/// Cancelling the calling task aborts the transfer.
///
/// Call ``shutdown()`` when done (deinit does it too); requests still in flight then fail with
/// ``HTTPTransportError/cancelled``, and later ones with ``HTTPTransportError/invalidRequest(_:)``.
///
/// This is the only file that touches libcurl pointers. libcurl is loaded (`dlopen`) when the first
/// client is created; when it is missing, `init` fails with an error naming the package to install
/// (docs/decisions/0005-load-libcurl-and-libpq-on-first-use.md).
package final class CurlHTTPClient: HTTPTransport {
    private let shared: CurlSharedState
    private let options: HTTPClientOptions
    /// Left by the curl thread when it has exited and freed every libcurl handle.
    private let threadExited = DispatchGroup()

    /// Creates the multi handle and starts the curl thread.
    ///
    /// Fails with ``HTTPTransportError/invalidRequest(_:)`` when an option is unusable (a
    /// `caFile` that does not exist, a malformed `connectTo` entry), and with
    /// ``HTTPTransportError/other(url:code:detail:)`` (retryable; `url` empty) when libcurl cannot
    /// be loaded (the message names the package to install) or cannot start.
    package init(options: HTTPClientOptions = HTTPClientOptions()) throws(HTTPTransportError) {
        if let failure = hearth_curl_load() {
            throw .other(url: "", code: Int(CURLE_FAILED_INIT.rawValue), detail: Self.libcurlMissing(String(cString: failure)))
        }
        if let caFile = options.caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw .invalidRequest("caFile \(caFile) does not exist or is not readable")
        }
        for entry in options.connectTo where entry.split(separator: ":", omittingEmptySubsequences: false).count < 4 {
            throw .invalidRequest("connectTo entry \"\(entry)\" is not host:port:connect-host:connect-port")
        }
        guard let multi = hearth_curl_multi_init() else {
            throw .other(url: "", code: Int(CURLE_OUT_OF_MEMORY.rawValue), detail: "curl_multi_init failed")
        }
        _ = hearth_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX)
        _ = hearth_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, max(0, options.maxConnectionsPerHost))
        _ = hearth_curl_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, max(0, options.maxTotalConnections))

        self.options = options
        self.shared = CurlSharedState(multi: CurlMultiHandle(raw: multi))
        let engine = CurlEngine(shared: shared, options: options)
        threadExited.enter()
        let thread = Thread { [threadExited] in
            engine.run()
            threadExited.leave()
        }
        thread.name = "hearth-curl"
        thread.start()
    }

    deinit {
        shutdown()
    }

    /// Stops the curl thread and frees libcurl's handles, closing pooled connections. Requests
    /// in flight fail with ``HTTPTransportError/cancelled``. Blocks until the thread has exited
    /// (normally well under a millisecond); safe to call more than once.
    package func shutdown() {
        shared.requestStop()
        threadExited.wait()
    }

    /// What to say when libcurl cannot be loaded (`reason`: the loader's, e.g. dlerror's text).
    static func libcurlMissing(_ reason: String) -> String {
        "libcurl cannot be loaded (\(reason)); Hearth loads it when it first sends an HTTP request "
            + "(push, webhooks, HTTP from jobs): install the Debian package libcurl4"
    }

    package func send(_ request: HTTPRequest) async throws(HTTPTransportError) -> HTTPResponse {
        let prepared = try CurlPreparedRequest(request, options: options)
        if Task.isCancelled { throw .cancelled }
        let shared = self.shared
        let id = shared.allocateID()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CurlResultContinuation) in
                shared.enqueue(id: id, request: prepared, continuation: continuation)
            }
        } onCancel: {
            shared.cancel(id: id)
        }
        // The handler cannot run any more: tidy up if it ran after the request had finished.
        if Task.isCancelled { shared.forgetEarlyCancel(id: id) }
        return try result.get()
    }
}

/// The `CURLM*`. `Sendable` because the only call made on it outside the curl thread is
/// `curl_multi_wakeup`, which libcurl documents as callable from any thread; and that call is
/// made under ``CurlSharedState``'s lock only while the thread has not begun to stop, so it never
/// races with `curl_multi_cleanup`.
struct CurlMultiHandle: @unchecked Sendable {
    let raw: UnsafeMutableRawPointer

    /// `curl_multi_wakeup`: wakes the curl thread from `curl_multi_poll`; callable from any thread.
    func wakeup() {
        _ = hearth_curl_multi_wakeup(raw)
    }
}

// MARK: - The curl thread

/// One transfer in progress: the easy handle, the memory libcurl reads from, and the response
/// being collected. Its address is the user data of the write and header callbacks.
private final class CurlTransfer {
    let id: UInt64
    let easy: UnsafeMutableRawPointer
    let continuation: CurlResultContinuation
    /// The request URL; only its ``HTTPTransportError/displayURL(_:)`` form goes into errors.
    let url: String
    var requestHeaders: UnsafeMutablePointer<curl_slist>?
    var requestBody: UnsafeMutableRawBufferPointer?
    let errorBuffer: UnsafeMutablePointer<CChar>
    var responseHeaders: [(name: String, value: String)] = []
    var responseBody: [UInt8] = []

    init(id: UInt64, easy: UnsafeMutableRawPointer, continuation: CurlResultContinuation, url: String) {
        self.id = id
        self.easy = easy
        self.continuation = continuation
        self.url = url
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    /// Frees what libcurl was reading; call after the easy handle left the multi handle.
    func release() {
        hearth_curl_slist_free_all(requestHeaders)
        requestHeaders = nil
        requestBody?.deallocate()
        requestBody = nil
        errorBuffer.deallocate()
    }
}

/// Runs on the curl thread and owns every libcurl handle.
///
/// `@unchecked Sendable`: it is created on the caller's thread, handed to the curl thread before
/// that thread starts, and from then on touched only by that thread.
private final class CurlEngine: @unchecked Sendable {
    private let shared: CurlSharedState
    private let options: HTTPClientOptions
    private let multi: UnsafeMutableRawPointer
    private var connectTo: UnsafeMutablePointer<curl_slist>?
    private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    private var activeByID: [UInt64: CurlTransfer] = [:]
    private var idleHandles: [UnsafeMutableRawPointer] = []
    private let maxIdleHandles = 256
    /// Transfers finished (their callers resumed) since the last ``CurlSharedState/takeWork(into:finished:)``.
    private var finishedIDs: [UInt64] = []

    init(shared: CurlSharedState, options: HTTPClientOptions) {
        self.shared = shared
        self.options = options
        self.multi = shared.multi.raw
        for entry in options.connectTo {
            connectTo = hearth_curl_slist_append(connectTo, entry)
        }
    }

    func run() {
        var running: Int32 = 0
        var starts: [CurlSharedState.Start] = []
        while true {
            let work = shared.takeWork(into: &starts, finished: finishedIDs)
            finishedIDs.removeAll(keepingCapacity: true)
            if work.stopping {
                for start in starts { start.continuation.resume(returning: .failure(.cancelled)) }
                break
            }
            for (id, request, continuation) in starts {
                if !work.dropped.isEmpty, work.dropped.contains(id) {
                    continuation.resume(returning: .failure(.cancelled))  // cancelled while queued
                } else {
                    start(id: id, request: request, continuation: continuation)
                }
            }
            starts.removeAll(keepingCapacity: true)
            for id in work.cancels {
                if let transfer = activeByID[id] {
                    complete(transfer, with: .failure(.cancelled))
                }
            }
            _ = hearth_curl_multi_perform(multi, &running)
            collectFinished()
            _ = hearth_curl_multi_poll(multi, nil, 0, 1000, nil)
        }
        for transfer in Array(active.values) {
            complete(transfer, with: .failure(.cancelled))
        }
        for easy in idleHandles { hearth_curl_easy_cleanup(easy) }
        idleHandles.removeAll()
        _ = hearth_curl_multi_cleanup(multi)
        hearth_curl_slist_free_all(connectTo)
        connectTo = nil
    }

    private func start(id: UInt64, request: CurlPreparedRequest, continuation: CurlResultContinuation) {
        guard let easy = idleHandles.popLast() ?? hearth_curl_easy_init() else {
            finishedIDs.append(id)
            continuation.resume(returning: .failure(.other(
                url: HTTPTransportError.displayURL(request.url), code: Int(CURLE_OUT_OF_MEMORY.rawValue), detail: "curl_easy_init failed")))
            return
        }
        let transfer = CurlTransfer(id: id, easy: easy, continuation: continuation, url: request.url)
        let userData = Unmanaged.passUnretained(transfer).toOpaque()

        setLong(easy, CURLOPT_NOSIGNAL, 1)
        setString(easy, CURLOPT_URL, request.url)
        setString(easy, CURLOPT_PROTOCOLS_STR, "http,https")
        setLong(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        // Wait for a connection being set up to say whether it multiplexes (HTTP/2) rather
        // than open another one. Plain http:// is always HTTP/1.1 here, and waiting there would
        // hold new requests behind a busy connection until its response arrives.
        if request.isHTTPS { setLong(easy, CURLOPT_PIPEWAIT, 1) }
        setLong(easy, CURLOPT_FOLLOWLOCATION, 0)
        setLong(easy, CURLOPT_SSL_VERIFYPEER, 1)
        setLong(easy, CURLOPT_SSL_VERIFYHOST, 2)
        if let caFile = options.caFile { setString(easy, CURLOPT_CAINFO, caFile) }
        if let connectTo { _ = hearth_curl_easy_setopt_pointer(easy, CURLOPT_CONNECT_TO, connectTo) }
        setString(easy, CURLOPT_USERAGENT, options.userAgent)
        setLong(easy, CURLOPT_CONNECTTIMEOUT_MS, request.connectTimeoutMS)
        setLong(easy, CURLOPT_TIMEOUT_MS, request.timeoutMS)

        for line in request.headerLines {
            transfer.requestHeaders = hearth_curl_slist_append(transfer.requestHeaders, line)
        }
        _ = hearth_curl_easy_setopt_pointer(easy, CURLOPT_HTTPHEADER, transfer.requestHeaders)

        if request.sendsBody {
            // libcurl does not copy POSTFIELDS: the buffer lives until the transfer is released.
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, request.body.count), alignment: 1)
            request.body.withUnsafeBytes { buffer.copyMemory(from: $0) }
            transfer.requestBody = buffer
            _ = hearth_curl_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count))
            _ = hearth_curl_easy_setopt_pointer(easy, CURLOPT_POSTFIELDS, buffer.baseAddress)
            if request.method != "POST" { setString(easy, CURLOPT_CUSTOMREQUEST, request.method) }
        } else if request.method == "HEAD" {
            setLong(easy, CURLOPT_NOBODY, 1)
        } else {
            setLong(easy, CURLOPT_HTTPGET, 1)
            if request.method != "GET" { setString(easy, CURLOPT_CUSTOMREQUEST, request.method) }
        }

        _ = hearth_curl_easy_setopt_write_callback(easy, CURLOPT_WRITEFUNCTION, curlWriteBody)
        _ = hearth_curl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, userData)
        _ = hearth_curl_easy_setopt_write_callback(easy, CURLOPT_HEADERFUNCTION, curlWriteHeader)
        _ = hearth_curl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, userData)
        _ = hearth_curl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, transfer.errorBuffer)

        let added = hearth_curl_multi_add_handle(multi, easy)
        guard added == CURLM_OK else {
            let detail = String(cString: hearth_curl_multi_strerror(added))
            transfer.release()
            hearth_curl_easy_cleanup(easy)
            finishedIDs.append(id)
            continuation.resume(returning: .failure(.other(url: HTTPTransportError.displayURL(request.url), code: Int(added.rawValue), detail: detail)))
            return
        }
        active[easy] = transfer
        activeByID[id] = transfer
    }

    private func collectFinished() {
        var remaining: Int32 = 0
        while let message = hearth_curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                  let transfer = active[easy]
            else { continue }
            let code = message.pointee.data.result
            complete(transfer, with: code == CURLE_OK ? .success(response(of: transfer)) : .failure(error(code, transfer)))
        }
    }

    /// Takes the transfer out of the multi handle, recycles its easy handle and resumes the caller.
    private func complete(_ transfer: CurlTransfer, with result: Result<HTTPResponse, HTTPTransportError>) {
        _ = hearth_curl_multi_remove_handle(multi, transfer.easy)
        active[transfer.easy] = nil
        activeByID[transfer.id] = nil
        transfer.release()
        if idleHandles.count < maxIdleHandles {
            // Reset forgets the options; open connections stay in the multi handle's cache.
            hearth_curl_easy_reset(transfer.easy)
            idleHandles.append(transfer.easy)
        } else {
            hearth_curl_easy_cleanup(transfer.easy)
        }
        finishedIDs.append(transfer.id)
        transfer.continuation.resume(returning: result)
    }

    private func response(of transfer: CurlTransfer) -> HTTPResponse {
        var status = 0
        _ = hearth_curl_easy_getinfo_long(transfer.easy, CURLINFO_RESPONSE_CODE, &status)
        var version = 0
        _ = hearth_curl_easy_getinfo_long(transfer.easy, CURLINFO_HTTP_VERSION, &version)
        let httpVersion = switch version {
        case Int(CURL_HTTP_VERSION_1_0): "1.0"
        case Int(CURL_HTTP_VERSION_2_0): "2"
        case Int(CURL_HTTP_VERSION_3): "3"
        default: "1.1"
        }
        return HTTPResponse(status: status, lowercasedHeaders: transfer.responseHeaders, body: transfer.responseBody, httpVersion: httpVersion)
    }

    private func error(_ code: CURLcode, _ transfer: CurlTransfer) -> HTTPTransportError {
        let buffered = String(cString: transfer.errorBuffer)
        let detail = buffered.isEmpty ? String(cString: hearth_curl_easy_strerror(code)) : buffered
        let url = HTTPTransportError.displayURL(transfer.url)
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return .timedOut(url: url)
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY,
             CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE,
             CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_PROXY:
            return .connectionFailed(url: url, detail: detail)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
             CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR,
             CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CRL_BADFILE,
             CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED,
             CURLE_SSL_SHUTDOWN_FAILED, CURLE_USE_SSL_FAILED:
            return .tls(url: url, detail: detail)
        case CURLE_URL_MALFORMAT, CURLE_BAD_FUNCTION_ARGUMENT:
            return .invalidRequest("\(url): \(detail)")
        case CURLE_ABORTED_BY_CALLBACK:
            return .cancelled
        default:
            return .other(url: url, code: Int(code.rawValue), detail: detail)
        }
    }

    private func setLong(_ easy: UnsafeMutableRawPointer, _ option: CURLoption, _ value: Int) {
        _ = hearth_curl_easy_setopt_long(easy, option, value)
    }

    /// libcurl copies string options, so the temporary C string may go away afterwards.
    private func setString(_ easy: UnsafeMutableRawPointer, _ option: CURLoption, _ value: String) {
        _ = value.withCString { hearth_curl_easy_setopt_pointer(easy, option, $0) }
    }
}

// MARK: - libcurl callbacks (run on the curl thread, inside curl_multi_perform)

/// CURLOPT_WRITEFUNCTION: appends body bytes to the transfer.
private func curlWriteBody(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userData: UnsafeMutableRawPointer?
) -> Int {
    let length = size * count
    guard let data, let userData, length > 0 else { return length }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userData).takeUnretainedValue()
    transfer.responseBody.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length))
    return length
}

/// CURLOPT_HEADERFUNCTION: called once per header line, status lines included; the line goes
/// into the transfer's response headers (``CurlHeaderLine/append(_:to:)``).
private func curlWriteHeader(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ userData: UnsafeMutableRawPointer?
) -> Int {
    let length = size * count
    guard let data, let userData, length > 0 else { return length }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(userData).takeUnretainedValue()
    CurlHeaderLine.append(UnsafeRawBufferPointer(start: data, count: length), to: &transfer.responseHeaders)
    return length
}
