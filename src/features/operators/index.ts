export { exchangeRateRoutes } from "./exchange-rate-routes";
export { operatorRoutes } from "./routes";
export { holdLimitRoutes } from "./hold-limit-routes";
export { supplierRoutes } from "./supplier-routes";
