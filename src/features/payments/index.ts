export { paymentRoutes } from "./routes";
export { cardById, cardUsableAt, issueSetupToken, usableCard } from "./service";
export type { SavedCard } from "./service";
export { expiredCardSetupTokens } from "./upkeep";
