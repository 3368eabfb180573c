package import CryptoExtras
import HearthKit

/// A Google service account key, the JSON file downloaded from the Firebase console
/// (Project settings → Service accounts → Generate new private key).
///
/// Only the fields FCM needs are kept: `client_email`, `private_key` (PEM, RSA),
/// `token_uri` and `project_id`. ``description`` never shows the key.
package struct ServiceAccount: Sendable, CustomStringConvertible {
    package var clientEmail: String
    package var projectID: String
    package var tokenURI: String
    package var privateKey: _RSA.Signing.PrivateKey

    package init(clientEmail: String, projectID: String, tokenURI: String, privateKey: _RSA.Signing.PrivateKey) {
        self.clientEmail = clientEmail
        self.projectID = projectID
        self.tokenURI = tokenURI
        self.privateKey = privateKey
    }

    /// Parses the service account JSON. `source` names where it came from (a file path or
    /// `$VARIABLE`) for the error messages.
    package static func parse(_ bytes: [UInt8], source: String) throws(PushSetupError) -> ServiceAccount {
        let value: JSONValue
        do { value = try JSONParser.parse(bytes) } catch {
            throw PushSetupError("\(source): the service account file is not valid JSON (\(error)); download it again from the Firebase console (Project settings → Service accounts)")
        }
        guard case .object(let object) = value else {
            throw PushSetupError("\(source): the service account file is not a JSON object; download it again from the Firebase console (Project settings → Service accounts → Generate new private key)")
        }
        func field(_ name: String) throws(PushSetupError) -> String {
            switch object[name] {
            case .string(let s)? where !s.isEmpty: return s
            case nil, .null?, .string?:
                throw PushSetupError("\(source): field \"\(name)\" is missing or empty; a service account key from the Firebase console has it")
            case let other?:
                throw PushSetupError("\(source): field \"\(name)\": expected string, found \(other.typeName)")
            }
        }
        if let type = object["type"]?.stringValue, type != "service_account" {
            throw PushSetupError("\(source): field \"type\" is \(JSONWriter.quoted(type)), expected \"service_account\"; use the service account key from the Firebase console, not a client configuration file")
        }
        let email = try field("client_email")
        let project = try field("project_id")
        let pem = try field("private_key")
        let tokenURI = object["token_uri"]?.stringValue ?? "https://oauth2.googleapis.com/token"
        guard tokenURI.hasPrefix("https://") || tokenURI.hasPrefix("http://") else {
            throw PushSetupError("\(source): field \"token_uri\" is not an http(s) URL")
        }
        let key: _RSA.Signing.PrivateKey
        do { key = try _RSA.Signing.PrivateKey(pemRepresentation: pem) } catch {
            throw PushSetupError("\(source): field \"private_key\" is not a PEM RSA private key of at least 2048 bits")
        }
        return ServiceAccount(clientEmail: email, projectID: project, tokenURI: tokenURI, privateKey: key)
    }

    package var description: String { "service account \(clientEmail) (project \(projectID))" }
}
