import { catalogueFor } from "../../src/features/supply/catalogue";

/**
 * The derived catalogue of three demo hotels (star rating 3) as the Worker computes it: the unit
 * project (Node) and the workerd tests check it alike, so the scripts that run under Node (the sandbox suppliers'
 * fixtures, npm start's seeding) derive the rooms the Worker sells.
 */
export const WORKER_CATALOGUES = [
  {
    code: "US000001",
    rooms: "STD,STE,TWN",
    plans:
      "STD-RO-FLX,STD-HB-FLX,STD-RO-NRF,STE-RO-FLX,TWN-RO-FLX,TWN-RO-NRF,TWN-BB-FLX,STD-RO-PKG,STD-RO-SNR,STD-RO-PAH",
  },
  { code: "US000002", rooms: "STD,STE", plans: "STD-RO-FLX,STE-RO-FLX,STE-BB-FLX,STE-HB-FLX,STD-RO-PKG" },
  {
    code: "US000006",
    rooms: "STD,TWN,FAM,DLX",
    plans:
      "STD-RO-FLX,STD-BB-FLX,STD-HB-FLX,TWN-RO-FLX,FAM-RO-FLX,FAM-RO-NRF,DLX-RO-FLX,DLX-RO-NRF,DLX-BB-FLX,STD-RO-PKG,STD-RO-MOB,STD-RO-SNR,STD-RO-PAH",
  },
] as const;

/** Each pinned hotel's catalogue as this engine derives it, beside what the Worker derives. */
export const derivedAndPinned = () =>
  WORKER_CATALOGUES.map(({ code, rooms, plans }) => {
    const catalogue = catalogueFor(code, 3);
    return {
      derived: [code, catalogue.rooms.map((r) => r.code).join(","), catalogue.ratePlans.map((p) => p.code).join(",")],
      pinned: [code, rooms, plans],
    };
  });
