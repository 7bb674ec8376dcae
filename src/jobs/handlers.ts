import type { Deps } from "../context.ts";
import type { JobRunner } from "./runner.ts";

/** Registers every queue's handler on the runner. Add a queue's registration here. */
export function registerJobHandlers(runner: JobRunner, deps: Deps): void {
  void runner;
  void deps;
}
