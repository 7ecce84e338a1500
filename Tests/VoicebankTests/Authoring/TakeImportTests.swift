// SPDX-License-Identifier: GPL-3.0-or-later
import AudioIO
import Foundation
import SpeechCore
import TestSupport
import Testing
import VoicebankAuthoring

@testable import Voicebank

/// What an import knows of each take: its features measured, its position from a prefix, a transcript column or
/// `--position`, and its cut from a longer recording.
@Suite struct TakeImportTests {
    @Test("an import measures each take, and takes(forPhraseKey:) reads back its features, position and no cut")
    func featuresReadBack() throws {
        let temporary = try TemporaryPack()
        // 0.6 s of a 220 Hz sine at 0.5: -9.0 dBFS RMS at both edges.
        let path = try Fixture.write(
            Signal.sine(frequency: 220, sampleRate: 22_050, frameCount: 13_230), to: temporary.directory.file("a.wav"),
            format: .init(.wav, .float32), sampleRate: 22_050)

        _ = try temporary.pack.importFiles([ImportRequest(path: path, phrase: "hello", position: .medial)], into: nil)

        let take = try #require(try temporary.pack.clipIndex(voice: nil).takes(forPhraseKey: "hello").first)
        let edges = try #require(take.edges)
        #expect(abs(try #require(edges.firstF0Hz) - 220) / 220 < 0.01)
        #expect(abs(try #require(edges.lastF0Hz) - 220) / 220 < 0.01)
        #expect(abs(edges.firstEnergyDecibels - -9.03) < 0.1 && abs(edges.lastEnergyDecibels - -9.03) < 0.1)
        #expect(edges.firstCepstrum.count == TakeEdges.cepstrumCount && edges.firstCepstrum.allSatisfy { $0.isFinite })
        #expect(take.contour == .level)
        #expect(take.position == .medial)
        #expect(take.cut == nil)
        #expect(try temporary.pack.clips().map(\.position) == [.medial])
        #expect(try temporary.pack.clips().map(\.contour) == [.level])
    }

    @Test(
        "a file name's prefix s. m. e. q. tags its take and leaves the phrase",
        arguments: [
            ("clips/e.hello.wav", "hello", TakePosition.final), ("s.good_morning.aiff", "good morning", .initial),
            ("m.a.wav", "a", .medial), ("q.ready-now.flac", "ready now", .question),
        ])
    func prefix(path: String, phrase: String, position: TakePosition) throws {
        #expect(
            try ImportRequest.tagged(path: path) == ImportRequest(path: path, phrase: phrase, position: position))
        #expect(try ImportRequest.tagged(path: path, position: position).position == position)
    }

    @Test(
        "names without a prefix keep their phrase from the name and take --position",
        arguments: ["hello.wav", "e.wav", "x.hello.wav", "E.hello.wav", "es.hello.wav", "e_hello.wav"])
    func noPrefix(path: String) throws {
        #expect(try ImportRequest.tagged(path: path, position: .medial) == ImportRequest(path: path, position: .medial))
        #expect(ImportRequest.positionPrefix(ofFileAt: path) == nil)
    }

    @Test("a prefix that --position contradicts, or on a fallback clip, is an error naming the file")
    func prefixConflicts() throws {
        #expect(throws: AuthoringError.self) { try ImportRequest.tagged(path: "e.hello.wav", position: .medial) }
        let conflict =
            "\(try #require(throws: AuthoringError.self) { try ImportRequest.tagged(path: "clips/e.hello.wav", position: .medial) })"
        #expect(
            conflict
                == "cannot import clips/e.hello.wav: its name tags it final (e.), but the position given tags it medial; expected one position (rename the file, or give no position)"
        )
        let fallback = try #require(throws: AuthoringError.self) {
            try ImportRequest.tagged(path: "q.beep.wav", isFallback: true)
        }
        #expect("\(fallback)".contains("a fallback clip has no position"))
    }

    @Test("a transcript's position column tags its lines; --position tags the lines without one")
    func transcriptPositions() throws {
        let transcript = try Transcript(
            parsing: "file,text,position\na.wav,Hello,final\nb.wav,Hello,\nc.wav,Hello, Question \n",
            path: "t.csv")

        #expect(transcript.lines.map(\.position) == [.final, nil, .question])
        let requests = try transcript.requests(for: ["a.wav", "b.wav", "c.wav"], position: nil).requests
        #expect(requests.map(\.position) == [.final, nil, .question])
        let final = try Transcript(parsing: "file\ttext\tposition\na.wav\tHi\tfinal\nb.wav\tHi\t\n", path: "t.tsv")
        #expect(
            try final.requests(for: ["a.wav", "b.wav"], position: .final).requests.map(\.position) == [.final, .final])
    }

    @Test(
        "a bad position in a transcript is a one-line error naming the file and line",
        arguments: [
            ("file,text,position\na.wav,Hi,final\nb.wav,Hi,sideways\n", 3, "unknown position \"sideways\""),
            ("file,text,role,position\nbeep.wav,,fallback,final\n", 2, "a fallback clip has no position"),
        ])
    func badTranscriptPosition(content: String, line: Int, message: String) throws {
        let error = try #require(throws: AuthoringError.self) { try Transcript(parsing: content, path: "t.csv") }
        #expect("\(error)".hasPrefix("transcript t.csv line \(line): \(message)"), "\(error)")
        #expect(!"\(error)".contains("\n"))
    }

    @Test("with a transcript, a file name with a prefix, or a line --position contradicts, is an error naming the line")
    func transcriptConflicts() throws {
        let transcript = try Transcript(
            parsing: "file\ttext\tposition\nhello\tHello\tfinal\ne.bye\tBye\t\n", path: "t.tsv")

        let prefixed = try #require(throws: AuthoringError.self) {
            try transcript.requests(for: ["x/hello.wav", "x/e.bye.wav"], keepGoing: true)
        }
        #expect(
            "\(prefixed)"
                == "transcript t.tsv line 3: the file x/e.bye.wav is tagged final by its name's prefix e., but with a transcript positions come from its position column; expected the file renamed without the prefix"
        )
        let contradicted = try #require(throws: AuthoringError.self) {
            try transcript.requests(for: ["x/hello.wav"], position: .medial)
        }
        #expect(
            "\(contradicted)".hasPrefix("transcript t.tsv line 2: the line tags hello final, but the position given"))
    }

    @Test("trimming anew measures the take features anew, over what plays")
    func trimmingRemeasures() throws {
        let temporary = try TemporaryPack()
        // A soft 220 Hz start (-35 dBFS RMS), then a loud 440 Hz tone: a trimming threshold of -30 dBFS cuts the start.
        let samples =
            Signal.sine(frequency: 220, amplitude: 0.025, sampleRate: 22_050, frameCount: 11_025)
            + Signal.sine(frequency: 440, amplitude: 0.5, sampleRate: 22_050, frameCount: 11_025)
        let path = try Fixture.write(
            samples, to: temporary.directory.file("late.wav"), format: .init(.wav, .float32), sampleRate: 22_050)
        _ = try temporary.pack.importFiles([ImportRequest(path: path)], into: nil)
        let edges = { () throws -> TakeEdges? in
            try temporary.pack.clipIndex(voice: nil).takes(forPhraseKey: "late").first?.edges
        }
        let whole = try #require(try edges())

        try temporary.pack.setTrimming(Trimming(thresholdDecibels: -30, padFrames: 0), voice: "com.example.ann")
        let trimmed = try #require(try edges())

        #expect(abs(try #require(whole.firstF0Hz) - 220) < 3, "\(whole)")
        #expect(abs(try #require(trimmed.firstF0Hz) - 440) < 5, "\(trimmed)")
        #expect(trimmed.firstEnergyDecibels > whole.firstEnergyDecibels + 20)
    }

    @Test("an export writes each take's position and a name without its prefix, and a transcript import reads them")
    func exportPositions() throws {
        let temporary = try TemporaryPack()
        let path = try Fixture.seedClip(at: temporary.directory.file("e.hello.aiff"))
        _ = try temporary.pack.importFiles([try ImportRequest.tagged(path: path)], into: nil)
        let folder = temporary.directory.file("exported")

        _ = try temporary.pack.export(to: folder)

        let transcript = folder + "/com.example.ann/transcript.tsv"
        #expect(
            try String(contentsOfFile: transcript, encoding: .utf8)
                == "file\ttext\trole\tposition\nhello.aiff\thello\t\tfinal\n")
        let assignment = try Transcript(path: transcript).requests(for: [folder + "/com.example.ann/hello.aiff"])
        #expect(assignment.requests.map(\.position) == [.final])
    }
}

/// Takes cut from one recording by an Audacity label track.
@Suite struct RecordingCutTests {
    let directory = TemporaryDirectory("cuts")

    /// 1.5 s at 16 kHz: three 0.5 s tones, 300, 400 and 500 Hz, one after the other.
    func recording() throws -> String {
        let tones = [300.0, 400, 500].flatMap { Signal.sine(frequency: $0, sampleRate: 16_000, frameCount: 8_000) }
        return try Fixture.write(
            tones, to: directory.file("session.wav"), format: .init(.wav, .pcm16), sampleRate: 16_000)
    }

    @Test("Audacity's labels: tabs, CRLF, spectral lines skipped, a prefix read as the position")
    func parse() throws {
        let labels = try LabelTrack(
            parsing: "0.000000\t0.500000\tone\r\n\\\t100.0\t2000.0\r\n0.500000\t1.000000\te.two\r\n\r\n", path: "l.txt")

        #expect(labels.labels.map(\.text) == ["one", "e.two"])
        #expect(labels.labels.map(\.lineNumber) == [1, 3])
        let format = SourceFormat(
            sampleRate: 16_000, channelCount: 1, frameCount: 24_000, container: "", sampleFormat: "")
        let takes = try labels.takes(of: format, at: "session.wav")
        #expect(takes.map(\.frames) == [0..<8_000, 8_000..<16_000])
        #expect(takes.map(\.phrase) == ["one", "two"])
        #expect(takes.map(\.position) == [nil, .final])
        #expect(try labels.takes(of: format, at: "session.wav", position: .final).map(\.position) == [.final, .final])
        let conflict = try #require(throws: AuthoringError.self) {
            try labels.takes(of: format, at: "session.wav", position: .medial)
        }
        #expect(
            "\(conflict)".hasPrefix("labels l.txt line 3: the label tags its take final (e.), but the position given"))
    }

    @Test(
        "a label track Audacity would not write is an error naming the file and line",
        arguments: [
            ("0\t1\tone\n1\t1\ttwo\n", 2, "not after it starts"),
            ("0\t1\n", 1, "is not a label"),
            ("0,5\t1\tone\n", 1, "\"0,5\" is not a time"),
            ("nan\t1\tone\n", 1, "\"nan\" is not a time"),
            ("0\t1\t  \n", 1, "the label has no text"),
            ("\n\n", nil, "it has no labels"),
        ] as [(String, Int?, String)])
    func malformed(content: String, line: Int?, message: String) throws {
        let error = try #require(throws: AuthoringError.self) { try LabelTrack(parsing: content, path: "l.txt") }
        guard case .labels("l.txt", line, let reason) = error, reason.contains(message) else {
            Issue.record("\(error)")
            return
        }
    }

    @Test("each label becomes a clip of its frames, knowing its cut: the next take cut from where it ends follows it")
    func cuts() throws {
        let temporary = try TemporaryPack()
        let path = try recording()
        let labels = try LabelTrack(
            parsing: "0.0\t0.5\ts.low\n0.5\t1.0\tmiddle\n1.0\t1.5\te.high\n0.25\t0.75\tq.across\n", path: "l.txt")

        let report = try temporary.pack.importRecording(path, labels: labels, into: nil)

        let clips = report.imported
        #expect(clips.map(\.phrase) == ["low", "middle", "high", "across"])
        #expect(clips.map(\.position) == [.initial, nil, .final, .question])
        #expect(clips.map(\.sourceName) == Array(repeating: "session.wav", count: 4))
        #expect(clips.map(\.source.frameCount) == [8_000, 8_000, 8_000, 8_000])
        let cuts = try clips.map { try #require($0.cut) }
        #expect(cuts.map(\.startFrame) == [0, 8_000, 16_000, 4_000])
        #expect(Set(cuts.map(\.recording)).count == 1)
        #expect(cuts[0].isFollowed(by: cuts[1]) && cuts[1].isFollowed(by: cuts[2]))
        #expect(!cuts[0].isFollowed(by: cuts[3]) && !cuts[3].isFollowed(by: cuts[1]))
        // Each clip keeps exactly its frames of the recording.
        let whole = try PreparedClip(path: path).original.bytes
        let middle = try temporary.pack.originalPCM(clipID: clips[1].id).bytes
        #expect(middle == Array(whole[16_000..<32_000]))
        let index = try temporary.pack.clipIndex(voice: nil)
        #expect(try index.takes(forPhraseKey: "middle").first?.cut == cuts[1])
        #expect(try index.takes(forPhraseKey: "middle").first?.edges?.firstF0Hz.map { abs($0 - 400) < 4 } == true)
    }

    @Test("a label past the recording's end is an error naming the line, and nothing is imported")
    func pastTheEnd() throws {
        let temporary = try TemporaryPack()
        let path = try recording()
        let labels = try LabelTrack(parsing: "0.0\t0.5\tone\n1.0\t1.6\ttwo\n", path: "l.txt")

        let error = try #require(throws: AuthoringError.self) {
            try temporary.pack.importRecording(path, labels: labels, into: nil)
        }

        #expect("\(error)".hasPrefix("labels l.txt line 2: the label ends at 1.6 s, past the end of \(path)"))
        #expect(try temporary.clipCount() == 0)
    }
}
