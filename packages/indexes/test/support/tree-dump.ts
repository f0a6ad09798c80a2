/**
 * Structural dumps of on-disk chunk indexes, read with core's decoders (independent of the index
 * classes under test): v2 B-tree header + every node in pre-order, with record bytes and child
 * counts but without node addresses, so two trees holding the same records can be compared.
 */
import {
  type MetadataReader,
  UNDEFINED_ADDRESS,
  decodeV2BTreeNode,
  openV2BTree,
  v2NodeUsedSize,
  type V2BTreeHeader,
} from '@chunkform/core/plugin';

/** One node of a dump. */
export interface DumpNode {
  depth: number;
  records: string[];
  children: [number, number][];
  /** Full node bytes (node size) for leaves: these contain no addresses and must match exactly. */
  leafBytes?: string;
}

/** A v2 B-tree dump. */
export interface TreeDump {
  header: Pick<V2BTreeHeader, 'version' | 'type' | 'nodeSize' | 'recordSize' | 'depth' | 'splitPercent' | 'mergePercent' | 'rootRecordCount' | 'totalRecordCount'> & {
    hasRoot: boolean;
  };
  nodes: DumpNode[];
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** Dumps the tree whose header is at `address`. */
export async function dumpV2Tree(reader: MetadataReader, address: number): Promise<TreeDump> {
  const h = await openV2BTree(reader, address);
  const nodes: DumpNode[] = [];
  const walk = async (addr: number, depth: number, nrec: number): Promise<void> => {
    const used = v2NodeUsedSize(h, reader.sizes, depth, nrec);
    const node = decodeV2BTreeNode(await reader.read(addr, used, 'node'), h, reader.sizes, addr, depth, nrec);
    const n: DumpNode = { depth, records: node.records.map(hex), children: node.children.map((c) => [c.recordCount, c.totalRecordCount]) };
    if (depth === 0) n.leafBytes = hex(await reader.read(addr, Math.min(h.nodeSize, reader.eof - addr), 'leaf'));
    nodes.push(n);
    for (const c of node.children) await walk(c.address, depth - 1, c.recordCount);
  };
  if (h.rootAddress !== UNDEFINED_ADDRESS) await walk(h.rootAddress, h.depth, h.rootRecordCount);
  const { version, type, nodeSize, recordSize, depth, splitPercent, mergePercent, rootRecordCount, totalRecordCount } = h;
  return {
    header: { version, type, nodeSize, recordSize, depth, splitPercent, mergePercent, rootRecordCount, totalRecordCount, hasRoot: h.rootAddress !== UNDEFINED_ADDRESS },
    nodes,
  };
}
