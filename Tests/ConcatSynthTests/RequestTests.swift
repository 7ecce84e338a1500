// SPDX-License-Identifier: GPL-3.0-or-later
import ConcatSynth
import Foundation
import Planning
import SSML
import SpeechCore
import TestSupport
import Testing
import Voicebank

/// The typed request and the facade's errors: each content kind is what its caller means, with no SSML written.
@Suite struct RequestTests {
    /// The repository's default pack, found as the tools find it from a build folder.
    static let defaultPack = ScreenReaderPack.path

    func phrases(_ request: SpeechRequest) throws -> [String] {
        let plan = try Synthesizer(bank: Self.defaultPack).renderPlan(request)
        return plan.segments.compactMap { segment in
            switch segment.kind {
            case .phrase, .fallback: return segment.text
            default: return nil
            }
        }
    }

    @Test("plain text that starts with < is spoken as text, where as SSML it would be malformed")
    func plainTextStartingWithMarkup() throws {
        #expect(try phrases(SpeechRequest(.text("<hello> & goodbye"))) == ["hello", "goodbye"])
        #expect(throws: ConcatSynthError.self) { try phrases(SpeechRequest(.ssml("<hello> & goodbye"))) }
    }

    @Test("characters are spelled one token each, as say-as characters spells them")
    func characters() throws {
        let spelled = try phrases(SpeechRequest(.characters("ab")))
        let marked = try phrases(SpeechRequest(.ssml(#"<speak><say-as interpret-as="characters">ab</say-as></speak>"#)))
        #expect(spelled == marked)
        #expect(spelled.count == 2)
    }

    @Test("spelling an SSML request spells its text and keeps its breaks")
    func spellingSSML() throws {
        let request = #"<speak>ab<break time="100ms"/>hello</speak>"#
        let plan = try Synthesizer(bank: Self.defaultPack).renderPlan(SpeechRequest(.ssml(request), isSpelling: true))
        let spoken = plan.segments.filter {
            switch $0.kind {
            case .phrase, .fallback: true
            default: false
            }
        }
        #expect(spoken.count == 2 + 5)
        #expect(plan.segments.contains { $0.kind == .silence && $0.frameCount == 2205 })
    }

    @Test("the voices of a pack are listed without a synthesizer, and a pack with none lists none")
    func voices() throws {
        #expect(try Synthesizer.voices(bank: Self.defaultPack).map(\.identifier).contains("org.concatsynth.en"))
        let directory = TemporaryDirectory()
        let path = directory.file("empty.sqlite")
        _ = try VoicePack(path: path, access: .create)
        #expect(try Synthesizer.voices(bank: path).isEmpty)
        #expect(throws: ConcatSynthError.self) { try Synthesizer(bank: path) }
    }

    /// An error of no engine stage, as a library user's look-up might throw.
    struct LookupFailure: Error, CustomStringConvertible {
        var description: String { "the phrase service is offline" }
    }

    @Test("an error the engine does not know is wrapped and reported, never a crash")
    func unknownError() {
        #expect(ConcatSynthError(LookupFailure()) == .other("the phrase service is offline"))
        #expect(ConcatSynthError(LookupFailure()).description == "the phrase service is offline")
        #expect(ConcatSynthError(engineError: LookupFailure()) == nil)
        let ssml = SSMLError.malformed(expected: "x", found: "y", line: 1, column: 2)
        #expect(ConcatSynthError(ssml) == .ssml(message: ssml.description, line: 1, column: 2))
    }
}
