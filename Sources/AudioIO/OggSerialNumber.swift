// SPDX-License-Identifier: GPL-3.0-or-later
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Makes an Ogg file (Vorbis, Opus) the same bytes on every render. libsndfile gives each Ogg stream a random serial
/// number, which every page carries and its checksum covers, so two renders of one request would differ there; this
/// rewrites each page with one fixed serial number and the checksum that goes with it, as Ogg's own CRC computes it.
enum OggSerialNumber {
    /// The serial number every stream gets: "csvb", as the voice pack's application id.
    static let fixed: UInt32 = 0x6373_7662

    /// Rewrites every page of the Ogg file open at `descriptor`, from its start.
    ///
    /// - Throws: `FileError` when the file cannot be read or written, or is not whole Ogg pages.
    static func fix(descriptor: Int32, path: String) throws(FileError) {
        var offset: off_t = 0
        var header = [UInt8](repeating: 0, count: 27 + 255)
        while true {
            let headerCount = try read(descriptor, into: &header, count: 27, at: offset, path: path)
            if headerCount == 0 { return }
            guard headerCount == 27, header[0..<4].elementsEqual("OggS".utf8) else {
                throw FileError(path: path, reason: "it is not whole Ogg pages at byte \(offset)")
            }
            let segmentCount = Int(header[26])
            let segments = try read(
                descriptor, into: &header, count: segmentCount, at: offset + 27, path: path, from: 27)
            guard segments == segmentCount else {
                throw FileError(path: path, reason: "its last Ogg page is cut short")
            }
            let bodyCount = header[27..<27 + segmentCount].reduce(0) { $0 + Int($1) }
            var page = [UInt8](repeating: 0, count: 27 + segmentCount + bodyCount)
            guard try read(descriptor, into: &page, count: page.count, at: offset, path: path) == page.count else {
                throw FileError(path: path, reason: "its last Ogg page is cut short")
            }
            for (index, byte) in withUnsafeBytes(of: fixed.littleEndian, Array.init).enumerated() {
                page[14 + index] = byte
            }
            for index in 22..<26 { page[index] = 0 }
            for (index, byte) in withUnsafeBytes(of: checksum(page).littleEndian, Array.init).enumerated() {
                page[22 + index] = byte
            }
            // Only the serial number and the checksum change: bytes 14 to 25.
            let written = page[14..<26].withUnsafeBytes { pwrite(descriptor, $0.baseAddress, 12, offset + 14) }
            guard written == 12 else { throw FileError(path: path, errorNumber: errno) }
            offset += off_t(page.count)
        }
    }

    private static func read(
        _ descriptor: Int32, into buffer: inout [UInt8], count: Int, at offset: off_t, path: String, from start: Int = 0
    ) throws(FileError) -> Int {
        var total = 0
        while total < count {
            let got = buffer.withUnsafeMutableBytes {
                pread(descriptor, $0.baseAddress! + start + total, count - total, offset + off_t(total))
            }
            if got < 0 {
                if errno == EINTR { continue }
                throw FileError(path: path, errorNumber: errno)
            }
            if got == 0 { break }
            total += got
        }
        return total
    }

    /// Ogg's page checksum: CRC-32 with the polynomial 0x04C11DB7, most significant bit first, starting at 0, over the
    /// page with its checksum field zeroed.
    static func checksum(_ page: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0
        for byte in page { crc = (crc << 8) ^ table[Int((crc >> 24) ^ UInt32(byte))] }
        return crc
    }

    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index) << 24
        for _ in 0..<8 { value = value & 0x8000_0000 != 0 ? (value << 1) ^ 0x04C1_1DB7 : value << 1 }
        return value
    }
}
