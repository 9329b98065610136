export { hotelxRoutes } from "./routes";
