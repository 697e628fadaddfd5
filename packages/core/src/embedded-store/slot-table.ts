/**
 * The slot table of one organisation of the embedded store: every chunk row loaded into the
 * in-memory indexes gets a slot (its position in the BM25 and vector indexes), and the table maps
 * slots to rows, documents and access groups. From it come the slot masks of filtered searches:
 * one byte per slot, set when the principal may read the chunk (ACL pre-filtering, decided once
 * per distinct owner and ACL by {@link AccessGroups}), it belongs to the wanted documents and
 * its metadata matches. A *staged* slot (a large document being loaded in small steps) is in no
 * mask and no document until {@link SlotTable.reveal}.
 */
import type { Principal } from "../acl/principal.js";
import type { ChunkFilter, MetadataCondition } from "../stores/chunk-filter.js";
import { AccessGroups } from "./access-groups.js";
import type { SlotMask } from "./bm25-index.js";
import type { IndexedChunkRow } from "./organisation-database.js";

/** What a slot holds. */
export interface SlotInfo {
  /** The chunk's row id in SQLite. */
  rowId: number;
  docId: string;
  /** The chunk's access group (see {@link AccessGroups.intern}). */
  accessGroup: number;
}

/** Slots of one organisation's loaded chunks. Removed slots stay empty until the next reload. */
export class SlotTable {
  private readonly accessGroups = new AccessGroups();
  private readonly slots: (SlotInfo | undefined)[] = [];
  /** Access group of each slot (-1 for a removed slot), for building masks in one typed loop. */
  private slotGroups = new Int32Array(1024);
  private cachedMask: { key: string; mask: SlotMask; allowed: number } | undefined;
  private readonly documentSlots = new Map<string, number[]>();
  private deadSlots = 0;
  /** Staged slots and what they will hold once revealed. */
  private readonly stagedSlots = new Map<number, SlotInfo>();

  /** Number of slots, removed and staged ones included. */
  get length(): number {
    return this.slots.length;
  }

  /** Number of staged slots. */
  get staged(): number {
    return this.stagedSlots.size;
  }

  /** Number of removed slots. */
  get dead(): number {
    return this.deadSlots;
  }

  /**
   * Number of slots the latest mask allows (the mask {@link mask} returned last, until the slots
   * change), or undefined when there is none.
   */
  get maskAllowed(): number | undefined {
    return this.cachedMask?.allowed;
  }

  /** What `slot` holds; undefined for a removed or unknown slot. */
  info(slot: number): SlotInfo | undefined {
    return this.slots[slot];
  }

  /** The live slot of row `rowId` of document `docId`, or undefined when it is not loaded (or removed). */
  slotOfRow(docId: string, rowId: number): number | undefined {
    return this.documentSlots.get(docId)?.find((slot) => this.slots[slot]?.rowId === rowId);
  }

  /** Gives `row` the next slot and returns it; `staged` keeps the slot out of every mask until {@link reveal}. */
  add(row: Pick<IndexedChunkRow, "id" | "doc_id" | "owner_id" | "acl">, staged = false): number {
    const slot = this.slots.length;
    const info: SlotInfo = { rowId: row.id, docId: row.doc_id, accessGroup: this.accessGroups.intern(row.owner_id, row.acl) };
    if (slot >= this.slotGroups.length) {
      const grown = new Int32Array(Math.max(slot + 1, this.slotGroups.length * 2));
      grown.set(this.slotGroups);
      this.slotGroups = grown;
    }
    if (staged) {
      this.slots.push(undefined);
      this.slotGroups[slot] = -1;
      this.stagedSlots.set(slot, info);
      return slot;
    }
    this.slots.push(info);
    this.place(slot, info);
    return slot;
  }

  /** Makes a staged slot part of its document and of the masks. */
  reveal(slot: number): void {
    const info = this.stagedSlots.get(slot);
    if (!info) return;
    this.stagedSlots.delete(slot);
    this.slots[slot] = info;
    this.place(slot, info);
  }

  /** Drops a staged slot (it stays empty, counted as removed, until the next reload). */
  discard(slot: number): void {
    if (this.stagedSlots.delete(slot)) this.deadSlots++;
  }

  private place(slot: number, info: SlotInfo): void {
    this.slotGroups[slot] = info.accessGroup;
    this.cachedMask = undefined;
    let list = this.documentSlots.get(info.docId);
    if (!list) this.documentSlots.set(info.docId, (list = []));
    list.push(slot);
  }

  /** Empties the slots of a document and returns them (none for an unknown document). */
  removeDocument(docId: string): number[] {
    const removed = this.documentSlots.get(docId) ?? [];
    for (const slot of removed) {
      this.slots[slot] = undefined;
      this.slotGroups[slot] = -1;
      this.cachedMask = undefined;
      this.deadSlots++;
    }
    this.documentSlots.delete(docId);
    return removed;
  }

  /**
   * The slots a filtered search may return, one byte per slot, or undefined without filters.
   * Access is decided once per distinct (owner, ACL) pair; the mask of the latest filter is kept
   * until the slots change, so the BM25 and vector searches of one query build it once.
   *
   * @param rowsMatching - the row ids whose metadata satisfies the conditions (called only when
   *   the filter has metadata conditions).
   */
  mask(filter: ChunkFilter, rowsMatching: (conditions: readonly MetadataCondition[]) => Set<number>): SlotMask | undefined {
    const conditions = filter.metadata ?? [];
    if (!filter.principal && !filter.docIds && conditions.length === 0) return undefined;
    const principal = filter.principal as Principal | undefined;
    const key = JSON.stringify([principal?.userName, principal?.roles, principal?.groups, filter.docIds, conditions]);
    if (this.cachedMask?.key === key) return this.cachedMask.mask;
    const count = this.slots.length;
    const mask = new Uint8Array(count);
    if (filter.docIds) {
      for (const docId of filter.docIds) for (const slot of this.documentSlots.get(docId) ?? []) mask[slot] = 1;
    } else {
      // Every live slot; a removed document's slots stay empty until the table is compacted.
      for (let slot = 0; slot < count; slot++) if (this.slots[slot] !== undefined) mask[slot] = 1;
    }
    if (principal) {
      const allowed = this.accessGroups.allowedFor(principal);
      const groups = this.slotGroups;
      for (let slot = 0; slot < count; slot++) {
        const group = groups[slot] as number;
        if (mask[slot] === 1 && (group < 0 || allowed[group] !== 1)) mask[slot] = 0;
      }
    }
    if (conditions.length > 0) {
      const rowIds = rowsMatching(conditions);
      for (let slot = 0; slot < count; slot++) {
        if (mask[slot] === 1 && !rowIds.has((this.slots[slot] as SlotInfo).rowId)) mask[slot] = 0;
      }
    }
    let allowed = 0;
    for (let slot = 0; slot < count; slot++) allowed += mask[slot] as number;
    this.cachedMask = { key, mask, allowed };
    return mask;
  }
}
