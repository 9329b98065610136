export { exchangeRateRoutes } from "./exchange-rate-routes";
export { operatorRoutes } from "./routes";
