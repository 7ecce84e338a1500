// SPDX-License-Identifier: GPL-3.0-or-later
import ConcatSynth
import Foundation
import TestSupport
import Testing
import Voicebank

/// The catalog of the default and the installed packs, made from given paths (`FoundByNameTests` runs the tools).
@Suite struct VoiceCatalogTests {
    let defaultPack = ScreenReaderPack.path

    @Test("a pack found twice, by a link or a second path, counts once")
    func sameFileOnce() throws {
        let directory = TemporaryDirectory("catalog-links")
        let link = directory.file("default.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: defaultPack)
        let catalog = try VoiceCatalog(
            defaultPack: defaultPack, installed: [link, "\(directory.path)/./default.sqlite"])
        #expect(catalog.packs.map(\.path) == [defaultPack])
        #expect(catalog.voices.map(\.voice.identifier) == ["org.concatsynth.en", "org.concatsynth.ja"])
        #expect(catalog.packs.first?.name == "default" && catalog.packs.first?.version == "1.0.0")
        #expect(try catalog.pack(ofVoice: "org.concatsynth.ja").path == defaultPack)
        #expect(catalog.warnings.isEmpty)
    }

    @Test("one release of a pack in two files (the clone's default pack and its installed copy) counts once")
    func sameReleaseOnce() throws {
        let directory = TemporaryDirectory("catalog-copies")
        let copy = directory.file("default.sqlite")
        try FileManager.default.copyItem(atPath: defaultPack, toPath: copy)
        let catalog = try VoiceCatalog(defaultPack: defaultPack, installed: [copy])
        #expect(catalog.packs.map(\.path) == [defaultPack])
        #expect(try catalog.pack(ofVoice: "org.concatsynth.ja").path == defaultPack)

        // Another version of it is another pack, and its voices are then in two packs.
        try execute("UPDATE manifest SET value = '1.1.0' WHERE key = 'version'", on: copy)
        let two = try VoiceCatalog(defaultPack: defaultPack, installed: [copy])
        #expect(two.packs.map(\.path) == [defaultPack, copy])
        #expect(
            throws: ConcatSynthError.voiceInSeveralPacks(
                identifier: "org.concatsynth.ja", packPaths: [defaultPack, copy])
        ) {
            try two.pack(ofVoice: "org.concatsynth.ja")
        }
    }

    @Test("a default pack that cannot be opened is left out with a warning, and is the error when no pack opens")
    func missingDefaultPack() throws {
        let directory = TemporaryDirectory("catalog-missing")
        let missing = directory.file("nowhere.sqlite")
        let catalog = try VoiceCatalog(defaultPack: missing, installed: [defaultPack])
        #expect(catalog.packs.map(\.path) == [defaultPack])
        #expect(catalog.warnings == ["the default pack is left out: \(VoicebankError.noPack(path: missing))"])
        #expect(throws: ConcatSynthError.noPack(path: missing)) {
            try VoiceCatalog(defaultPack: missing, installed: [])
        }
    }

    @Test("attribution-voices: the voices it names carry the attribution, in the catalog and the servers' pools")
    func attributionOfVoices() throws {
        let directory = TemporaryDirectory("catalog-attribution")
        let copy = directory.file("pack.sqlite")
        try FileManager.default.copyItem(atPath: defaultPack, toPath: copy)
        let attribution = "concat-synth's tests, made by tools/build-test-pack"
        // A manifest without the key, as every one made before it: every voice.
        #expect(try VoiceCatalog(bank: copy).voices.map(\.attribution) == [attribution, attribution])

        try execute(
            "INSERT INTO manifest (key, value) VALUES ('attribution-voices', 'org.concatsynth.en')", on: copy)
        let catalog = try VoiceCatalog(bank: copy)
        #expect(catalog.voices.map(\.voice.identifier) == ["org.concatsynth.en", "org.concatsynth.ja"])
        #expect(catalog.voices.map(\.attribution) == [attribution, nil])
        #expect(catalog.packs.first?.attribution == attribution)
        // What Wyoming's info and the HTTP voice list read.
        #expect(try SynthesizerPools(catalog).voices.map(\.attribution) == [attribution, nil])
    }
}
