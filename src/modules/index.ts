import type { Deps } from "../context.ts";
import { healthController } from "./health/index.ts";

/** Every controller the app mounts, in order. Add a module's controller here. */
export const controllers = (deps: Deps) => [
  healthController(deps),
];
