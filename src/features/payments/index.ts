export { paymentRoutes } from "./routes";
export { cardById, issueSetupToken, usableCard } from "./service";
export type { SavedCard } from "./service";
export { expiredCardSetupTokens } from "./upkeep";
