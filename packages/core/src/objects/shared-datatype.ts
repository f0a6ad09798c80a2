/**
 * Datatype messages may be *shared*: the message then points at a committed (named) datatype
 * object whose header holds the real datatype message (spec IV.A.2 "Shared Message").
 * @module
 */
import { H5Error, UnsupportedError } from '../errors.js';
import { ByteReader } from '../format/bytes.js';
import { decodeDatatype, type Datatype } from '../format/messages/datatype.js';
import { DATATYPE } from '../format/messages/message-types.js';
import { decodeSharedMessage } from '../format/messages/shared-message.js';
import type { FileContext } from '../file/file-context.js';
import type { HeaderMessage } from '../file/header-model.js';

/** Message flag bit 1: the message is shared. */
export const MESSAGE_FLAG_SHARED = 0x02;

/** Decodes a datatype message body (not shared). */
export function decodeDatatypeBody(ctx: FileContext, body: Uint8Array, address = -1): Datatype {
  return decodeDatatype(new ByteReader(body, { sizes: ctx.sizes, structure: 'datatype message', base: address }));
}

/** The datatype a (possibly shared) datatype message describes. */
export async function resolveDatatypeMessage(ctx: FileContext, msg: HeaderMessage, path: string, depth = 0): Promise<Datatype> {
  try {
    if ((msg.flags & MESSAGE_FLAG_SHARED) === 0) return decodeDatatypeBody(ctx, msg.body);
    return await loadCommittedDatatype(ctx, decodeSharedMessage(msg.body, ctx.sizes), path, depth);
  } catch (e) {
    throw e instanceof H5Error ? e.withPath(path) : e;
  }
}

/** Loads the datatype of a committed datatype object referenced by a shared message. */
export async function loadCommittedDatatype(
  ctx: FileContext,
  ref: ReturnType<typeof decodeSharedMessage>,
  path: string,
  depth = 0,
): Promise<Datatype> {
  if (ref.kind !== 'object-header') {
    throw new UnsupportedError('datatypes stored in the shared object header message heap are not supported', {
      path,
      structure: 'shared message',
    });
  }
  if (depth > 8) throw new UnsupportedError('shared datatype chain is too deep', { path, structure: 'shared message' });
  const h = await ctx.header(ref.address);
  const m = h.find(DATATYPE);
  if (!m) throw new UnsupportedError('shared message does not point at a committed datatype', { path, address: ref.address });
  return resolveDatatypeMessage(ctx, m, path, depth + 1);
}
