// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import SpeechCore
import Units
import Voicebank

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// tools/align-takes, running: pocketsphinx 5's forced alignment in a long-lived Python process, asked one take at a
/// time over pipes (a request line, answer lines). Owns the process, which it ends when released.
///
/// Each request hands the aligner every word's phones from the English front end (`alignerPhones`), which it uses
/// for the words CMU's dictionary lacks: espeak-ng's phonemes are mapped to ARPAbet in one place, `EnglishFrontEnd`.
final class Aligner {
    /// What one take's alignment came to.
    enum Outcome: Equatable, Sendable {
        /// Words and phones with their times in the aligner's 10 ms frames, and the score.
        case aligned(score: Double, words: [AlignedTake.Segment], phones: [AlignedTake.Segment])
        /// The audio does not match the words: stored as a failed take.
        case failed(String)
        /// The take cannot be aligned at all (too short, a word without phones): warned about, nothing stored.
        case unusable(String)
    }

    /// The rate the aligner's acoustic model was trained at.
    static let sampleRate = 16_000
    /// The aligner's frames: 10 ms.
    static let frameRate = 100

    /// Its name and version, as a take's alignment records it.
    let name: String
    private let pid: pid_t
    private let input: UnsafeMutablePointer<FILE>
    private let output: UnsafeMutablePointer<FILE>
    private let scratch: String

    /// Starts the aligner: `VOICEBANK_ALIGNER` names the checkout whose tools/align-takes and .build/python-env run it;
    /// without it, the checkout this program was built in (found from its own path).
    ///
    /// - Throws: `.alignerUnavailable` when neither is there or the process does not start.
    init() throws(AuthoringError) {
        let root = try Self.checkout()
        let python = root + "/.build/python-env/bin/python"
        let script = root + "/tools/align-takes"
        guard access(python, X_OK) == 0, access(script, R_OK) == 0 else {
            throw .alignerUnavailable(reason: "\(python) or \(script) is not there")
        }
        var toAligner: [Int32] = [0, 0]
        var fromAligner: [Int32] = [0, 0]
        // Closed on exec: an aligner started after this one must not hold this one's pipes, or this one would never
        // read the end of its input when it is released, and its release would wait for it forever.
        guard pipe(&toAligner) == 0, pipe(&fromAligner) == 0,
            (toAligner + fromAligner).allSatisfy({ fcntl($0, F_SETFD, FD_CLOEXEC) == 0 })
        else {
            throw .alignerUnavailable(reason: "no pipes: \(String(cString: strerror(errno)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toAligner[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromAligner[1], 1)
        for descriptor in toAligner + fromAligner { posix_spawn_file_actions_addclose(&actions, descriptor) }
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup(python), strdup(script), nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, python, &actions, nil, argv, environ)
        close(toAligner[0])
        close(fromAligner[1])
        guard status == 0, let input = fdopen(toAligner[1], "w"), let output = fdopen(fromAligner[0], "r") else {
            close(toAligner[1])
            close(fromAligner[0])
            throw .alignerUnavailable(
                reason: "\(python) \(script) would not start: \(String(cString: strerror(status)))")
        }
        self.pid = pid
        self.input = input
        self.output = output
        var template = Array("/tmp/voicebank-align-XXXXXX".utf8CString)
        let descriptor = mkstemp(&template)
        scratch = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if descriptor >= 0 { close(descriptor) }
        fputs("version\n", input)
        fflush(input)
        guard descriptor >= 0, let version = Self.line(output), version.hasPrefix("pocketsphinx ") else {
            name = ""
            throw .alignerUnavailable(reason: "\(script) did not answer with its version (is pocketsphinx installed?)")
        }
        name = version
    }

    deinit {
        fclose(input)
        fclose(output)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        unlink(scratch)
    }

    /// Aligns a take's samples (mono at 22050 Hz) to its words (lower case, no spaces in a word), each with its phones
    /// (`alignerPhones`).
    func align(_ samples: [Float], words: [String], phones: [[String]], clipID: Int) throws(AuthoringError) -> Outcome {
        let converted: [Float]
        do throws(AudioIOError) {
            converted = try SampleRateConversion.convert(
                samples, from: RenderFormat.sampleRate, to: Self.sampleRate)
        } catch {
            throw .alignerFailed(clipID: clipID, reason: error.description)
        }
        let pcm = converted.map { Int16(max(-32768, min(32767, ($0 * 32767).rounded()))).littleEndian }
        guard let file = fopen(scratch, "wb") else {
            throw .alignerFailed(clipID: clipID, reason: "cannot write \(scratch): \(String(cString: strerror(errno)))")
        }
        let written = pcm.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        fclose(file)
        guard written == pcm.count * 2 else { throw .alignerFailed(clipID: clipID, reason: "cannot write \(scratch)") }
        let phoneList = phones.map { $0.joined(separator: " ") }.joined(separator: ",")
        fputs("\(scratch)\t\(words.joined(separator: " "))\t\(phoneList)\n", input)
        fflush(input)
        guard let first = Self.line(output) else {
            throw .alignerFailed(clipID: clipID, reason: "the aligner's output ended")
        }
        let (kind, rest) = Self.split(first)
        switch kind {
        case "failed": return .failed(rest)
        case "unusable": return .unusable(rest)
        case "aligned": break
        default: throw .alignerFailed(clipID: clipID, reason: "unexpected answer \"\(first)\"")
        }
        guard let score = Double(rest) else {
            throw .alignerFailed(clipID: clipID, reason: "unexpected score \"\(rest)\"")
        }
        var alignedWords: [AlignedTake.Segment] = []
        var phones: [AlignedTake.Segment] = []
        while let line = Self.line(output), line != "." {
            let fields = line.split(separator: " ")
            let numbers = fields.dropFirst(2).compactMap { Int($0) }
            guard fields.count >= 4, numbers.count == fields.count - 2, numbers[0] <= numbers[1] else {
                throw .alignerFailed(clipID: clipID, reason: "unexpected line \"\(line)\"")
            }
            let segment = { (word: Int) in
                AlignedTake.Segment(label: String(fields[1]), frames: numbers[0]..<numbers[1], word: word)
            }
            switch (fields[0], numbers.count) {
            case ("word", 2): alignedWords.append(segment(alignedWords.count))
            case ("phone", 3) where numbers[2] < alignedWords.count: phones.append(segment(numbers[2]))
            default: throw .alignerFailed(clipID: clipID, reason: "unexpected line \"\(line)\"")
            }
        }
        return .aligned(score: score, words: alignedWords, phones: phones)
    }

    /// The checkout whose aligner runs: `VOICEBANK_ALIGNER`, else the nearest folder above this program's own file
    /// that holds tools/align-takes.
    private static func checkout() throws(AuthoringError) -> String {
        if let named = getenv("VOICEBANK_ALIGNER") { return String(cString: named) }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { throw .alignerUnavailable(reason: "this program's path is unknown") }
        let program = String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var folder = program
        while let slash = folder.lastIndex(of: "/"), slash != folder.startIndex {
            folder = String(folder[..<slash])
            if access(folder + "/tools/align-takes", R_OK) == 0 { return folder }
        }
        throw .alignerUnavailable(reason: "no checkout with tools/align-takes above \(program)")
    }

    private static func line(_ file: UnsafeMutablePointer<FILE>) -> String? {
        var buffer: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(buffer) }
        let count = getline(&buffer, &capacity, file)
        guard count > 0, let buffer else { return nil }
        var text = String(cString: buffer)
        if text.hasSuffix("\n") { text.removeLast() }
        return text
    }

    private static func split(_ line: String) -> (String, String) {
        guard let space = line.firstIndex(of: " ") else { return (line, "") }
        return (String(line[..<space]), String(line[line.index(after: space)...]))
    }
}

/// Several aligners, one take each at a time: pocketsphinx aligns on one core, so a pool of processes aligns a pack
/// on all of them. Each aligner is lent to one thread at a time.
final class AlignerPool: @unchecked Sendable {
    // @unchecked Sendable: `idle` is used only holding `lock`, and an aligner only by the thread it is lent to.

    /// The aligners' name and version (the same program for all).
    let name: String
    let count: Int
    private let lock = ConditionLock()
    private var idle: [Aligner]

    /// Starts `count` aligners (at least one).
    ///
    /// - Throws: `.alignerUnavailable` when one does not start.
    init(count: Int) throws(AuthoringError) {
        var aligners: [Aligner] = []
        for _ in 0..<max(1, count) { aligners.append(try Aligner()) }
        name = aligners[0].name
        self.count = aligners.count
        idle = aligners
    }

    /// Aligns a take on the first aligner free, waiting for one when all are busy.
    func align(_ samples: [Float], words: [String], phones: [[String]], clipID: Int) throws(AuthoringError)
        -> Aligner.Outcome
    {
        let aligner = lock.locked {
            while idle.isEmpty { lock.wait() }
            return idle.removeLast()
        }
        defer {
            lock.locked {
                idle.append(aligner)
                lock.broadcast()
            }
        }
        return try aligner.align(samples, words: words, phones: phones, clipID: clipID)
    }
}

extension Aligner {
    /// Each word's ARPAbet phones without stress, as the aligner's dictionary writes them, phonemized on its own as a
    /// dictionary entry is, in American English as the aligner's acoustic model and dictionary are, whatever the
    /// voice's own English; none for a word the front end cannot phonemize (the aligner then finds the take unusable,
    /// unless its dictionary has the word).
    static func alignerPhones(_ words: [String]) -> [[String]] {
        let frontEnd = EnglishFrontEnd(language: "en-US")
        return words.map { word in
            let phones = (try? frontEnd.phones(for: [word]))?.first ?? []
            return phones.map(\.symbol)
        }
    }
}
