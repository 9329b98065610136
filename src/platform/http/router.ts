import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env";
import { validationHook } from "./validation";

/** Every feature's router: OpenAPI-described routes sharing the one validation hook. */
export const featureRouter = <E extends AppEnv = AppEnv>() => new OpenAPIHono<E>({ defaultHook: validationHook });
