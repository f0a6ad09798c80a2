/**
 * The in-memory model of one object header: its messages, and (for headers chunkform may rewrite)
 * where its chunks live. Every object (group, dataset, committed datatype) is a view over one model,
 * so changes made before a flush are seen by every reader in the same session.
 * @module
 */
import type { ObjectHeader, RawMessage } from '../format/object-header.js';
import type { ObjectHeaderV2Options } from '../format/object-header-v2.js';
import type { Extent } from './allocator.js';

/** One message as the object layer sees it. */
export interface HeaderMessage {
  type: number;
  /** Message flags (bit0 constant, bit1 shared, ...). */
  flags: number;
  body: Uint8Array;
  creationOrder?: number;
}

/** An object header in memory. */
export class HeaderModel {
  /** Chunk-0 message-area capacity (bytes) when the header is managed (rewritable) by us. */
  chunk0Capacity = 0;
  /** The continuation block currently holding overflow messages, if any. */
  continuation: Extent | null = null;
  /** Encoder options that keep an adopted header's prefix (times, creation-order tracking) as it was. */
  encodeOptions: ObjectHeaderV2Options = {};
  /** True when the model differs from the file. */
  dirty = false;
  /** True when chunkform wrote (or adopted) this header and may rewrite it. */
  managed = false;
  /**
   * Bytes chunk 0 occupies at {@link address} (prefix, messages, checksum) when the header is
   * managed: the space a flush that moves the header copy-on-write releases.
   */
  chunk0Bytes = 0;

  constructor(
    /**
     * Where the header lives. A flush may move a changed header copy-on-write to new space (see
     * `H5File.flush`); every handle holds this model, so they all follow the move.
     */
    public address: number,
    public messages: HeaderMessage[],
    readonly source: ObjectHeader | null,
  ) {}

  /** Builds a model from a decoded header. */
  static fromHeader(h: ObjectHeader): HeaderModel {
    return new HeaderModel(
      h.address,
      h.messages.map((m: RawMessage) => ({
        type: m.type,
        flags: m.flags,
        body: m.body,
        ...(m.creationOrder !== undefined ? { creationOrder: m.creationOrder } : {}),
      })),
      h,
    );
  }

  /**
   * State the object layer shares between every handle of this object (a dataset's lock, current
   * shape and storage: objects/dataset-state.ts); kept across changes to the messages.
   */
  objectState: unknown = undefined;

  /** Values derived from the messages (e.g. a group's link list), dropped on every change. */
  readonly derived = new Map<string, unknown>();

  /** Marks the model changed: it will be rewritten on flush and derived values are recomputed. */
  touch(): void {
    this.dirty = true;
    this.derived.clear();
  }

  /** First message of `type`, if any. */
  find(type: number): HeaderMessage | undefined {
    return this.messages.find((m) => m.type === type);
  }

  /** All messages of `type`. */
  findAll(type: number): HeaderMessage[] {
    return this.messages.filter((m) => m.type === type);
  }
}
