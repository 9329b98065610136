export { chatPages } from "./pages";
export { chatSessionsOf, eraseChatSessions } from "./personal-data";
export { chatRoutes } from "./routes";
export { ChatSession } from "./chat-session";
