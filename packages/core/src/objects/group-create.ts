/**
 * The object header messages of a new group: link info (compact link storage, creation order
 * tracked and indexed when asked) and group info, as HDF5 ≥ 1.8 writes them.
 * @module
 */
import { UNDEFINED_ADDRESS } from '../format/bytes.js';
import { encodeGroupInfo } from '../format/messages/group-info.js';
import { encodeLinkInfo } from '../format/messages/link-info.js';
import { GROUP_INFO, LINK_INFO } from '../format/messages/message-types.js';
import type { FileContext } from '../file/file-context.js';
import type { HeaderMessage } from '../file/header-model.js';

/** The messages of a new group's object header (link info and group info; compact links). */
export function groupMessages(ctx: FileContext, trackOrder: boolean): HeaderMessage[] {
  return [
    {
      type: LINK_INFO,
      flags: 0,
      body: encodeLinkInfo(
        {
          trackCreationOrder: trackOrder,
          indexCreationOrder: trackOrder,
          ...(trackOrder ? { maxCreationIndex: 0 } : {}),
          fractalHeapAddress: UNDEFINED_ADDRESS,
          nameIndexAddress: UNDEFINED_ADDRESS,
          ...(trackOrder ? { creationOrderIndexAddress: UNDEFINED_ADDRESS } : {}),
        },
        ctx.sizes,
      ),
    },
    { type: GROUP_INFO, flags: 0, body: encodeGroupInfo({}) },
  ];
}
