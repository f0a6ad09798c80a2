/**
 * Malformed LZ4 blocks (LZ4 block format: sequences of token, literals, offset, match length) that
 * every LZ4 block decoder here must reject with `Lz4BlockError`: the block bytes and the output size.
 */
export const MALFORMED_LZ4_BLOCKS: readonly (readonly [number[], number])[] = [
  [[0x10], 1], // literal runs past the end
  [[0x00, 0x05, 0x00, 0x00], 4], // offset beyond the output
  [[0x10, 0x61, 0x00, 0x00], 5], // offset 0
  [[0x10, 0x61, 0x01], 5], // truncated offset
  [[0x10, 0x61, 0x01, 0x00, 0x0f], 40], // truncated match length
  [[0x20, 0x61, 0x62], 5], // too short output
  [[0x30, 0x61, 0x62, 0x63], 2], // literals overflow the output
  [[0x10, 0x61, 0x01, 0x00, 0x40], 2], // match overflows the output
  [[0xf0, 0xff, 0xff, 0xff], 64], // literal length runs past the end
  [[0x1f, 0x61, 0x01, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], 64], // match length past output
  [[0x10, 0x61, 0x01, 0x00, 0x10, 0x62], 64], // trailing garbage: a sequence after the last literal run
  [[], 1],
];
