import { embeddedKind } from "./embedded/kind";
import { hotelxKind } from "./hotelx/kind";
import type { SupplierKind } from "./kind";

/**
 * Every kind of supplier, by name: adding a kind is a folder under kinds/ and one line here
 * (docs/architecture.md). The operator's supplier routes, their /openapi.json schema and the
 * directory that builds a connection's suppliers all read this.
 */
const kinds = new Map<string, SupplierKind>();

/** Registers a kind (at start-up, from this file; a test may register its own). */
export const registerSupplierKind = <S extends Record<string, unknown>, C>(kind: SupplierKind<S, C>) => {
  kinds.set(kind.kind, kind as unknown as SupplierKind);
};

registerSupplierKind(embeddedKind);
registerSupplierKind(hotelxKind);

export const supplierKind = (kind: string): SupplierKind | undefined => kinds.get(kind);
export const supplierKinds = (): SupplierKind[] => [...kinds.values()];
