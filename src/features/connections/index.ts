export {
  chatConnection,
  coreAccess,
  coreAccessOrBearer,
  coreConnection,
  readAccess,
  readAccessById,
  searchConnection,
  tgxConnections,
} from "./access";
export type { AccessEnv, ConnectionAccess, CoreConnection } from "./access";
export {
  DEFAULT_SELLING_CURRENCY,
  createConnection,
  deleteConnection,
  getConnection,
  listConnections,
  setConnectionInUse,
  updateConnection,
} from "./connections";
export type { Page } from "./connections";
export { partnerConnectionRoutes } from "./routes";
export { API_TYPES, CONNECTION_TYPES, connectionSchema } from "./schemas";
export {
  EMBEDDED_SUPPLIER,
  connectionBasics,
  connectionSupplierCodes,
  connectionsSelling,
  replaceConnectionSuppliers,
} from "./connection-suppliers";
export type { UsageOperation } from "./usage-counter";
export { countCall } from "./usage";
export type { BilledCall } from "./usage";
