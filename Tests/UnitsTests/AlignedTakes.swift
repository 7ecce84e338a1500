import SpeechCore

/// Aligned takes written by hand, for the units' tests: words with their phones, each phone `phoneFrames` long and
/// every word right after the one before, unless a pause is asked for after it.
enum AlignedTakes {
    static func take(
        _ clipID: Int, _ words: [(String, [String])], phoneFrames: Int = 1_000, leadFrames: Int = 2_000,
        pausesAfter: Set<Int> = [], level: Double = 0
    ) -> AlignedTake {
        var frame = leadFrames
        var alignedWords: [AlignedTake.Segment] = []
        var phones: [AlignedTake.Segment] = []
        for (index, (word, wordPhones)) in words.enumerated() {
            let start = frame
            for phone in wordPhones {
                phones.append(.init(label: phone, frames: frame..<frame + phoneFrames, word: index))
                frame += phoneFrames
            }
            alignedWords.append(.init(label: word, frames: start..<frame, word: index))
            if pausesAfter.contains(index) { frame += 4 * phoneFrames }
        }
        let whole = frame + leadFrames
        return AlignedTake(
            take: ClipTake(
                clipID: clipID, frameCount: whole - 2 * leadFrames + 400, firstFrame: leadFrames - 200,
                levelDecibels: level),
            wholeFrameCount: whole, words: alignedWords, phones: phones)
    }
}
