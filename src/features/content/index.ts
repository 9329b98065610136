export { contentRoutes } from "./routes";
export { accommodations } from "./tables";
