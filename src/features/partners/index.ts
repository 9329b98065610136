export { maskedApiKey, newApiKey } from "./api-keys";
export type { ApiKeyRecord } from "./api-keys";
export { purgeLoginFailures } from "./login";
export { partnerRoutes } from "./routes";
export { createdApiKeySchema, md5Schema, userProfileSchema } from "./schemas";
export { staleLoginFailures } from "./upkeep";
export { emailConflict, newUserRow, userProfile } from "./users";
export type { NewUser, UserProfile } from "./users";
