// SPDX-License-Identifier: GPL-3.0-or-later
import SSML
import SpeechCore
import Testing

@testable import Planning

@Suite struct PlacementTests {
    @Test("a spoken segment carries its voice's joins and its run's volume, speed and pitch, within range")
    func segment() {
        var voice = VoiceSettings(identifier: "com.example.ann", primaryLanguages: ["en-US"])
        voice.joins.crossfadeFrames = 64
        let placement = Placement(voices: [voice])
        var context = SpeechContext()
        context.volumeDecibels = -6
        let spoken = Spoken(context: context, speaker: 0, speed: 2, pitchSemitones: 10)
        let take = ClipTake(clipID: 1, frameCount: 100)
        let segment = placement.segment(.phrase(take), frameCount: 100, text: "hello", 3..<8, spoken, pitchShift: 20)
        #expect(segment.voice == "com.example.ann" && segment.crossfadeFrames == 64)
        #expect(segment.volumeDecibels == -6 && segment.speed == 2)
        #expect(segment.pitchSemitones == Prosody.pitchShifts.upperBound)
        placement.append(segment)
        placement.finish()
        #expect(placement.nextSegment()?.frameCount == 50)
        #expect(placement.nextMarker()?.marker.text == "hello")
    }
}
