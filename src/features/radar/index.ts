export { eraseRadarSubject, radarPiiRetention } from "./personal-data";
export { radarRoutes } from "./routes";
export { radarSettingsRequestSchema, radarSettingsResponseSchema } from "./schemas";
export { setAllowedOrigins } from "./service";
export { expiredRadarSignals } from "./upkeep";
