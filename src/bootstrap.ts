import { generatePassword, hashPassword } from "./auth/passwords.ts";
import type { Repositories, Store } from "./db/store.ts";
import { insertProject, newProject } from "./modules/projects/service.ts";
import { newTeam } from "./modules/team/service.ts";

export interface BootstrapResult {
  team_id: string;
  team_token: string;
  project_id: string;
  project_token: string;
  /** With a dashboard password for the owner: their sign-in, shown once. */
  owner_email?: string;
  owner_password?: string;
}

export interface BootstrapOptions {
  teamName: string;
  inboundDomain: string;
  /** The owner's sign-in address (default a made-up one under localhost). */
  ownerEmail?: string;
  /** Give the owner a random dashboard password (Argon2id), returned once in the result. */
  ownerPassword?: boolean;
}

/** The rows of a team, its owner, and a default project with one route of each type. */
export function bootstrapRows(opts: BootstrapOptions, now = Date.now()) {
  const team = newTeam({ name: opts.teamName, ownerEmail: opts.ownerEmail }, now);
  const project = newProject({ teamId: team.created.teamId, name: "Default project", inboundDomain: opts.inboundDomain }, now);
  const result: BootstrapResult = { team_id: team.created.teamId, team_token: team.created.teamToken, project_id: project.projectId, project_token: project.projectToken };
  return { team: team.rows, project, result };
}

/** The owner's password, made and hashed before the write (hashing takes ~0.1 s and must not hold a transaction). */
async function ownerPassword(opts: BootstrapOptions): Promise<{ password: string; hash: string } | null> {
  if (!opts.ownerPassword) return null;
  const password = generatePassword();
  return { password, hash: await hashPassword(password) };
}

async function insertBootstrap(tx: Repositories, rows: ReturnType<typeof bootstrapRows>, password: { password: string; hash: string } | null): Promise<BootstrapResult> {
  await tx.teams.insert(rows.team);
  await insertProject(tx, rows.project);
  if (!password) return rows.result;
  await tx.accounts.setPassword(rows.team.owner.id, password.hash, rows.team.owner.created_at);
  return { ...rows.result, owner_email: rows.team.owner.email, owner_password: password.password };
}

/** A team, its owner, and a default project with one route of each type (`posthorn init`). */
export async function addBootstrapTeam(store: Store, opts: BootstrapOptions): Promise<BootstrapResult> {
  const password = await ownerPassword(opts);
  const rows = bootstrapRows(opts);
  return store.write((tx) => insertBootstrap(tx, rows, password));
}

/** Bootstraps only when the database has no team yet (first `serve`); counted again inside the write, so two nodes starting at once make one team. */
export async function bootstrapIfEmpty(store: Store, opts: BootstrapOptions): Promise<BootstrapResult | null> {
  if ((await store.read.teams.count()) > 0) return null;
  const password = await ownerPassword(opts);
  const rows = bootstrapRows(opts);
  return store.write(async (tx) => {
    await tx.locks.take("bootstrap");
    if ((await tx.teams.count()) > 0) return null;
    return insertBootstrap(tx, rows, password);
  });
}
