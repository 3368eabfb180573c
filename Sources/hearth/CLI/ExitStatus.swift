import ArgumentParser
import Foundation
import HearthKit
import HearthDataDirectory
import HearthStore
import HearthHost
import HearthPostgres

/// sysexits(3) codes and the mapping from Hearth's error types (docs/cli.md#exit-codes-sysexits).
enum ExitStatus {
    static let success: Int32 = 0
    static let jobFailed: Int32 = 1
    static let changesPresent: Int32 = 2
    static let usage: Int32 = 64
    static let dataError: Int32 = 65
    static let ioError: Int32 = 74
    static let tempFail: Int32 = 75
    static let noPermission: Int32 = 77
    static let config: Int32 = 78

    static func code(for error: any Error) -> Int32 {
        switch error {
        case is UsageError, is UnknownJobError, is ParameterError: return usage
        case is InvalidInputError: return dataError
        case is LockBusyError, is ConflictError, is PostgresError: return tempFail
        case is ConfigError, is JobSetupError, is StoreError: return config
        case is FileIO.Failure: return ioError
        case is OwnershipError: return noPermission
        default: return jobFailed
        }
    }

    /// Prints `hearth: error: …` on stderr and exits with the mapped code.
    static func fail(_ error: any Error) -> ExitCode {
        let message = String(describing: error)
        FileHandle.standardError.write(Data("hearth: error: \(message)\n".utf8))
        return ExitCode(code(for: error))
    }
}

/// Writes to stdout.
func emit(_ text: String) {
    FileHandle.standardOutput.write(Data(text.utf8))
}

/// Writes bytes to stdout.
func emit(bytes: [UInt8]) {
    FileHandle.standardOutput.write(Data(bytes))
}

/// Writes to stderr.
func emitError(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
}

/// Whether stderr / stdout is a terminal (progress and colour only then).
var stderrIsTTY: Bool { isatty(STDERR_FILENO) == 1 }
var stdoutIsTTY: Bool { isatty(STDOUT_FILENO) == 1 }
