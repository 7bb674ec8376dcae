// Preloaded by bunfig.toml: a top-level afterAll here runs once, after every test file.
import { afterAll } from "bun:test";
import { cleanScratch } from "./scratch.ts";

afterAll(cleanScratch);
