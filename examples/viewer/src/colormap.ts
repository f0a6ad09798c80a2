/**
 * Colour maps as 256-entry RGB lookup tables, interpolated linearly between a few anchor colours, and the
 * rendering of a frame (values + defined mask) into canvas pixels.
 * @module
 */

/** Anchor colours (RGB, evenly spaced from low to high) of the maps the viewer offers. */
const ANCHORS: Record<string, readonly (readonly [number, number, number])[]> = {
  viridis: [[68, 1, 84], [71, 44, 122], [59, 81, 139], [44, 113, 142], [33, 144, 141], [39, 173, 129], [92, 200, 99], [170, 220, 50], [253, 231, 37]],
  magma: [[0, 0, 4], [28, 16, 68], [79, 18, 123], [129, 37, 129], [181, 54, 122], [229, 80, 100], [251, 135, 97], [254, 194, 135], [252, 253, 191]],
  gray: [[0, 0, 0], [255, 255, 255]],
};

/** Names of the available colour maps. */
export const COLOUR_MAPS = Object.keys(ANCHORS);

/** Colour drawn over elements a sparse dataset does not define, and its opacity. */
export const MASK_RGB: readonly [number, number, number] = [236, 236, 244];
export const MASK_ALPHA = 0.85;

const luts = new Map<string, Uint8Array>();

/** The 256 × RGB lookup table of a colour map. */
export function colourLut(name: string): Uint8Array {
  let lut = luts.get(name);
  if (lut) return lut;
  const a = ANCHORS[name] ?? ANCHORS.viridis!;
  lut = new Uint8Array(256 * 3);
  for (let i = 0; i < 256; i++) {
    const t = (i / 255) * (a.length - 1);
    const k = Math.min(a.length - 2, Math.floor(t));
    const f = t - k;
    for (let c = 0; c < 3; c++) lut[3 * i + c] = Math.round(a[k]![c]! * (1 - f) + a[k + 1]![c]! * f);
  }
  luts.set(name, lut);
  return lut;
}

/** A 2-D frame ready to draw: values in C order, and for sparse data which elements are defined. */
export interface Frame {
  height: number;
  width: number;
  values: ArrayLike<number>;
  /** 1 where the element is defined; null for dense data (all defined). */
  defined: Uint8Array | null;
}

export interface RenderOptions {
  colourMap: string;
  log: boolean;
  /** Draw {@link MASK_RGB} over undefined elements. */
  showMask: boolean;
}

/** The value range over the defined elements (finite values only); [0, 0] when there are none. */
export function valueRange(frame: Frame): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  const { values, defined } = frame;
  for (let i = 0; i < values.length; i++) {
    if (defined && !defined[i]) continue;
    const v = values[i]!;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return lo <= hi ? [lo, hi] : [0, 0];
}

/** Paints the frame into RGBA pixels (`out.length === 4 · height · width`). */
export function renderFrame(frame: Frame, opts: RenderOptions, out: Uint8ClampedArray): void {
  const lut = colourLut(opts.colourMap);
  const [lo, hi] = valueRange(frame);
  const map = opts.log ? (v: number) => Math.log1p(Math.max(0, v - lo)) : (v: number) => Math.max(0, v - lo);
  const top = map(hi) || 1;
  const { values, defined } = frame;
  const [mr, mg, mb] = MASK_RGB;
  for (let i = 0, p = 0; i < values.length; i++, p += 4) {
    const v = values[i]!;
    const k = Number.isFinite(v) ? Math.min(255, Math.max(0, Math.round((map(v) / top) * 255))) : 0;
    let r = lut[3 * k]!;
    let g = lut[3 * k + 1]!;
    let b = lut[3 * k + 2]!;
    if (opts.showMask && defined && !defined[i]) {
      r = r * (1 - MASK_ALPHA) + mr * MASK_ALPHA;
      g = g * (1 - MASK_ALPHA) + mg * MASK_ALPHA;
      b = b * (1 - MASK_ALPHA) + mb * MASK_ALPHA;
    }
    out[p] = r;
    out[p + 1] = g;
    out[p + 2] = b;
    out[p + 3] = 255;
  }
}
