import Foundation

/// A PNG read back into pixels, so that tests can look at a rendered plot the way a person does.
/// Decodes what rsvg-convert writes (8-bit RGBA or RGB, non-interlaced) with a small inflate after
/// Mark Adler's puff (RFC 1950/1951); nothing to install.
struct PNGImage {
    struct DecodeError: Error, CustomStringConvertible {
        var description: String
    }

    let width: Int
    let height: Int
    /// RGBA, row by row.
    let pixels: [UInt8]

    init(contentsOf url: URL) throws {
        let bytes = [UInt8](try Data(contentsOf: url))
        guard bytes.count > 8, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
            throw DecodeError(description: "not a PNG")
        }
        var pos = 8
        var width = 0, height = 0, colorType = 0
        var idat: [UInt8] = []
        func be32(_ i: Int) -> Int { Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3]) }
        while pos + 8 <= bytes.count {
            let length = be32(pos)
            let type = String(decoding: bytes[(pos + 4)..<(pos + 8)], as: UTF8.self)
            let data = (pos + 8)..<(pos + 8 + length)
            guard data.upperBound <= bytes.count else { throw DecodeError(description: "truncated chunk") }
            switch type {
            case "IHDR":
                width = be32(data.lowerBound)
                height = be32(data.lowerBound + 4)
                guard bytes[data.lowerBound + 8] == 8, bytes[data.lowerBound + 12] == 0 else {
                    throw DecodeError(description: "only 8-bit non-interlaced images")
                }
                colorType = Int(bytes[data.lowerBound + 9])
            case "IDAT":
                idat += bytes[data]
            default:
                break
            }
            pos = data.upperBound + 4
        }
        let channels: Int
        switch colorType {
        case 6: channels = 4
        case 2: channels = 3
        default: throw DecodeError(description: "colour type \(colorType) not handled")
        }
        var inflater = Inflater(input: Array(idat.dropFirst(2)))
        let raw = try inflater.inflate()
        let stride = width * channels
        guard raw.count >= height * (stride + 1) else { throw DecodeError(description: "short image data") }
        var out = [UInt8](repeating: 255, count: width * height * 4)
        var previous = [UInt8](repeating: 0, count: stride)
        var row = [UInt8](repeating: 0, count: stride)
        for y in 0..<height {
            let base = y * (stride + 1)
            let filter = raw[base]
            for i in 0..<stride {
                let x = Int(raw[base + 1 + i])
                let a = i >= channels ? Int(row[i - channels]) : 0
                let b = Int(previous[i])
                let c = i >= channels ? Int(previous[i - channels]) : 0
                let value: Int
                switch filter {
                case 0: value = x
                case 1: value = x + a
                case 2: value = x + b
                case 3: value = x + (a + b) / 2
                case 4:
                    let p = a + b - c
                    let pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                    value = x + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)
                default: throw DecodeError(description: "filter \(filter)")
                }
                row[i] = UInt8(truncatingIfNeeded: value)
            }
            for px in 0..<width {
                for ch in 0..<channels { out[(y * width + px) * 4 + ch] = row[px * channels + ch] }
            }
            swap(&previous, &row)
        }
        self.width = width
        self.height = height
        self.pixels = out
    }

    func rgb(_ x: Int, _ y: Int) -> (r: Int, g: Int, b: Int) {
        let i = (y * width + x) * 4
        return (Int(pixels[i]), Int(pixels[i + 1]), Int(pixels[i + 2]))
    }

    /// Whether the pixel carries ink: anything visibly darker than the white page.
    func ink(_ x: Int, _ y: Int) -> Bool {
        let p = rgb(x, y)
        return p.r < 240 || p.g < 240 || p.b < 240
    }

    /// The inked pixels, grown by `margin` so that touching counts as overlapping.
    func inkMask(margin: Int = 0) -> [Bool] {
        var mask = [Bool](repeating: false, count: width * height)
        for y in 0..<height {
            for x in 0..<width where ink(x, y) {
                for dy in -margin...margin {
                    for dx in -margin...margin {
                        let xx = x + dx, yy = y + dy
                        if xx >= 0, yy >= 0, xx < width, yy < height { mask[yy * width + xx] = true }
                    }
                }
            }
        }
        return mask
    }
}

/// Inflate (RFC 1951), after puff.c: canonical Huffman codes decoded a bit at a time.
struct Inflater {
    let input: [UInt8]
    var pos = 0
    var bitBuffer = 0
    var bitCount = 0
    var out: [UInt8] = []

    init(input: [UInt8]) { self.input = input }

    struct Huffman {
        var count = [Int](repeating: 0, count: 16)
        var symbol: [Int]

        init(_ lengths: ArraySlice<Int>) {
            symbol = [Int](repeating: 0, count: lengths.count)
            for l in lengths { count[l] += 1 }
            var offsets = [Int](repeating: 0, count: 16)
            for l in 1..<15 { offsets[l + 1] = offsets[l] + count[l] }
            for (s, l) in lengths.enumerated() where l != 0 {
                symbol[offsets[l]] = s
                offsets[l] += 1
            }
        }
    }

    static let lengthBase = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    static let distanceBase = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
    static let distanceExtra = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]

    mutating func bits(_ need: Int) throws -> Int {
        var value = bitBuffer
        while bitCount < need {
            guard pos < input.count else { throw PNGImage.DecodeError(description: "out of input") }
            value |= Int(input[pos]) << bitCount
            pos += 1
            bitCount += 8
        }
        bitBuffer = value >> need
        bitCount -= need
        return value & ((1 << need) - 1)
    }

    mutating func decode(_ h: Huffman) throws -> Int {
        var code = 0, first = 0, index = 0
        for length in 1...15 {
            code |= try bits(1)
            let count = h.count[length]
            if code - count < first { return h.symbol[index + (code - first)] }
            index += count
            first = (first + count) << 1
            code <<= 1
        }
        throw PNGImage.DecodeError(description: "bad Huffman code")
    }

    mutating func codes(_ lengths: Huffman, _ distances: Huffman) throws {
        while true {
            var symbol = try decode(lengths)
            if symbol < 256 {
                out.append(UInt8(symbol))
            } else if symbol == 256 {
                return
            } else {
                symbol -= 257
                guard symbol < 29 else { throw PNGImage.DecodeError(description: "bad length") }
                let length = Self.lengthBase[symbol] + (try bits(Self.lengthExtra[symbol]))
                let d = try decode(distances)
                guard d < 30 else { throw PNGImage.DecodeError(description: "bad distance") }
                let distance = Self.distanceBase[d] + (try bits(Self.distanceExtra[d]))
                guard distance <= out.count else { throw PNGImage.DecodeError(description: "distance too far") }
                let start = out.count - distance
                for k in 0..<length { out.append(out[start + k]) }
            }
        }
    }

    mutating func inflate() throws -> [UInt8] {
        var last = 0
        repeat {
            last = try bits(1)
            switch try bits(2) {
            case 0:
                bitBuffer = 0
                bitCount = 0
                guard pos + 4 <= input.count else { throw PNGImage.DecodeError(description: "short stored block") }
                let length = Int(input[pos]) | Int(input[pos + 1]) << 8
                pos += 4
                guard pos + length <= input.count else { throw PNGImage.DecodeError(description: "short stored block") }
                out += input[pos..<(pos + length)]
                pos += length
            case 1:
                var lengths = [Int](repeating: 8, count: 288)
                for i in 144..<256 { lengths[i] = 9 }
                for i in 256..<280 { lengths[i] = 7 }
                try codes(Huffman(lengths[...]), Huffman([Int](repeating: 5, count: 30)[...]))
            case 2:
                let nlen = try bits(5) + 257, ndist = try bits(5) + 1, ncode = try bits(4) + 4
                let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
                var lengths = [Int](repeating: 0, count: 320)
                for i in 0..<ncode { lengths[order[i]] = try bits(3) }
                let codeCode = Huffman(lengths[0..<19])
                var index = 0
                while index < nlen + ndist {
                    var symbol = try decode(codeCode)
                    if symbol < 16 {
                        lengths[index] = symbol
                        index += 1
                    } else {
                        var value = 0
                        if symbol == 16 {
                            guard index > 0 else { throw PNGImage.DecodeError(description: "repeat with no length") }
                            value = lengths[index - 1]
                            symbol = 3 + (try bits(2))
                        } else if symbol == 17 {
                            symbol = 3 + (try bits(3))
                        } else {
                            symbol = 11 + (try bits(7))
                        }
                        guard index + symbol <= nlen + ndist else { throw PNGImage.DecodeError(description: "too many lengths") }
                        for _ in 0..<symbol {
                            lengths[index] = value
                            index += 1
                        }
                    }
                }
                try codes(Huffman(lengths[0..<nlen]), Huffman(lengths[nlen..<(nlen + ndist)]))
            default:
                throw PNGImage.DecodeError(description: "bad block type")
            }
        } while last == 0
        return out
    }
}
