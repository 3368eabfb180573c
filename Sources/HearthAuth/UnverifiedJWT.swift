import Foundation
import HearthKit

/// A compact JWT's header and payload, decoded but not yet trusted: what picks the key and
/// what the claims are checked on once jwt-kit has verified the signature.
struct UnverifiedJWT {
    /// ID tokens are about 1 KB; anything this long is not one.
    static let maxLength = 16 * 1024

    var header: JSONObject
    var payload: JSONObject

    init(_ token: String) throws(IDTokenError) {
        guard token.utf8.count <= Self.maxLength else {
            throw IDTokenError(.malformed("it is longer than \(Self.maxLength) bytes"))
        }
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw IDTokenError(.malformed("a JWT is three base64url parts separated by dots"))
        }
        header = try Self.object(parts[0], "header")
        payload = try Self.object(parts[1], "payload")
    }

    private static func object(_ part: Substring.UTF8View.SubSequence, _ name: String) throws(IDTokenError) -> JSONObject {
        guard let bytes = base64URLDecoded(part), let value = try? JSONParser.parse(bytes), let object = value.objectValue else {
            throw IDTokenError(.malformed("its \(name) is not a base64url-encoded JSON object"))
        }
        return object
    }

    /// Unpadded base64url (RFC 7515 §2); nil for any other character.
    static func base64URLDecoded(_ text: some Collection<UInt8>) -> [UInt8]? {
        var b64: [UInt8] = []
        b64.reserveCapacity(text.count + 3)
        for c in text {
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                b64.append(c)
            case UInt8(ascii: "-"): b64.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): b64.append(UInt8(ascii: "/"))
            default: return nil
            }
        }
        while b64.count % 4 != 0 { b64.append(UInt8(ascii: "=")) }
        return Data(base64Encoded: Data(b64)).map { Array($0) }
    }
}
