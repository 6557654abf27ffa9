import Foundation

/// A self-signed certificate for 127.0.0.1 made with the openssl CLI, acting as its own CA.
public struct TestCertificate {
    public let certificateFile: String
    public let keyFile: String

    /// Makes a certificate whose subjectAltName is `subjectAltName` (e.g. "IP:127.0.0.1" or "DNS:example.test").
    public static func make(in directory: TemporaryDirectory, name: String = "server",
                     subjectAltName: String = "IP:127.0.0.1") throws -> TestCertificate {
        let certificate = directory.file("\(name)-cert.pem")
        let key = directory.file("\(name)-key.pem")
        let result = try Subprocess.run("openssl", [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "2",
            "-subj", "/CN=\(name)", "-addext", "subjectAltName=\(subjectAltName)",
        ])
        guard result.status == 0 else {
            throw Subprocess.Failure(description: "openssl req failed: \(result.stderr)")
        }
        return TestCertificate(certificateFile: certificate, keyFile: key)
    }
}
