/**
 * Token authentication, shared by the HTTP API (src/http/auth.ts: team and project tokens) and
 * SMTP submission (AUTH with a project token). A wrong token counts as a failed authentication of
 * the client's IP (src/auth/throttle.ts); an IP beyond its limit is refused before any lookup.
 */
import type { Deps } from "../context.ts";
import type { ProjectTokenRow } from "../db/projects.ts";
import type { Repositories } from "../db/store.ts";
import { UnauthenticatedError } from "../errors.ts";
import { digestsEqual, sha256Hex } from "../ids.ts";
import { accessOf, permissionsOf, projectsOf, type Access } from "./permissions.ts";
import type { TeamTokenAuthRow } from "../db/teams.ts";
import { authThrottle, lazyAddress, type AuthThrottle, type ClientAddress } from "./throttle.ts";

export interface TeamPrincipal {
  kind: "team";
  teamId: string;
  /** What it may do (src/auth/permissions.ts); absent: everything (the team token). */
  access?: Access;
  /** The named team token it came from (team_tokens), if any. */
  tokenId?: string;
  /** A named token's role (a built-in key or a custom role's id); null: its own permissions. Only an `owner` one acts as an owner. */
  role?: string | null;
}
export interface ProjectPrincipal {
  kind: "project";
  teamId: string;
  projectId: string;
  smtpEnabled: boolean;
}

/** Last-used stamps are written at most this often per token, to keep sends write-light. */
const TOUCH_INTERVAL_MS = 60_000;

/**
 * How long a token's row is taken from memory instead of the database. A lookup outside a
 * transaction was ~6 % of the send API's CPU (17 µs of SQLite's read-transaction set-up per
 * request). Changes made through this process (rotation, deletion, smtp_enabled) forget the row
 * at once; ones made elsewhere (another node, the CLI) are seen within this.
 */
const ROW_TTL_MS = 1_000;
/** Rows kept at most; past it the memory starts over (one row per token in use, so only a flood of valid tokens gets there). */
const MAX_ROWS = 10_000;

type TeamTokenRow = { id: string; token_hash: string };
type CachedRow<R> = { row: R; until: number };

const authenticators = new WeakMap<object, TokenAuthenticator>();

/** The token authenticator of this process's dependencies, shared by the HTTP API and SMTP submission so that forgetting a token forgets it for both. */
export function tokenAuthenticator(deps: Pick<Deps, "store" | "log" | "config">): TokenAuthenticator {
  let authenticator = authenticators.get(deps);
  if (!authenticator) authenticators.set(deps, (authenticator = new TokenAuthenticator(deps)));
  return authenticator;
}

/**
 * Looks tokens up by their SHA-256 (tokens are never stored) and re-checks the stored digest in
 * constant time. Throws UnauthenticatedError for anything else.
 */
export class TokenAuthenticator {
  private readonly touched = new Map<string, number>();
  private readonly throttle: AuthThrottle;
  /** Rows found by token hash, for ROW_TTL_MS. A token that is not found is never remembered: a new one works at once. */
  private readonly teams = new Map<string, CachedRow<TeamTokenRow>>();
  private readonly projects = new Map<string, CachedRow<ProjectTokenRow>>();
  private readonly named = new Map<string, CachedRow<TeamTokenAuthRow>>();
  /**
   * When each id was last forgotten. A row read within ROW_TTL_MS of that is not remembered: the
   * change that caused it may not be committed yet (on PostgreSQL another connection still
   * reads the old row until then), and remembering the old row would keep an old token working.
   */
  private readonly forgotten = new Map<string, number>();

  constructor(private readonly deps: Pick<Deps, "store" | "log" | "config">) {
    this.throttle = authThrottle(deps);
  }

  /** `address` null (no socket: app.handle) is neither throttled nor counted. */
  authenticateTeam(token: string | null | undefined, address: ClientAddress): Promise<TeamPrincipal> {
    return this.throttled(token, address, async (ip, miss) => {
      const hash = this.digest(token, "ph_team_");
      const team = await this.row(this.teams, hash, () => (miss(), this.deps.store.read.teams.byTokenHash(hash)));
      if (team) return this.teamPrincipal(team, hash, ip);
      // Not the team's own token: one of its named tokens (team_tokens), or nothing.
      return this.namedPrincipal(await this.row(this.named, hash, () => (miss(), this.deps.store.read.teams.namedTokenByHash(hash))), hash, ip);
    });
  }

  authenticateProject(token: string | null | undefined, address: ClientAddress): Promise<ProjectPrincipal> {
    return this.throttled(token, address, async (ip, miss) => {
      const hash = this.digest(token, "ph_");
      return this.projectPrincipal(await this.row(this.projects, hash, () => (miss(), this.deps.store.read.projects.byTokenHash(hash))), hash, ip);
    });
  }

  /**
   * Refuses a throttled IP first; a token given but wrong counts against its IP (no token at all
   * guesses nothing). A right token is accepted only if its IP's failures, with those of the
   * checks of the same IP still at the database, stay under the limit (`admit`): of guesses sent
   * at once, a right one is refused like the wrong ones once the limit's failures are among them.
   * `authenticate` calls `miss` when its check goes to the database (the throttle's `begin`).
   */
  private async throttled<P>(
    token: string | null | undefined,
    address: ClientAddress,
    authenticate: (ip: () => string | null, miss: () => void) => Promise<P>,
  ): Promise<P> {
    const ip = lazyAddress(address);
    this.throttle.checkIp(ip);
    const check: { end: (() => void) | null } = { end: null };
    let principal: P;
    try {
      principal = await authenticate(ip, () => (check.end ??= this.throttle.begin(ip())));
    } catch (err) {
      try {
        // Counted (at once, in this node's tally) before the check stops holding right tokens back.
        if (err instanceof UnauthenticatedError && token) {
          const counted = this.throttle.recordFailure(this.throttle.ipRules(ip()));
          check.end?.();
          await counted;
        }
      } finally {
        check.end?.();
      }
      throw err;
    }
    check.end?.();
    const admitted = this.throttle.admit(ip);
    if (admitted) await admitted;
    return principal;
  }

  /**
   * Forgets what is known of a team's or project's token: after a rotation (the old token stops
   * working at once, the new one's first use is stamped), a deletion or a change of smtp_enabled.
   */
  forget(id: string): void {
    this.touched.delete(id);
    if (this.forgotten.size >= MAX_ROWS) this.forgotten.clear();
    this.forgotten.set(id, Date.now());
    for (const rows of [this.teams, this.projects, this.named] as Map<string, CachedRow<{ id: string }>>[]) {
      for (const [hash, cached] of rows) if (cached.row.id === id) rows.delete(hash);
    }
  }

  /** The row of a token hash: from memory while fresh, else from the database (and then remembered if found). */
  private row<R extends { id: string }>(rows: Map<string, CachedRow<R>>, hash: string, load: () => Promise<R | null>): R | null | Promise<R | null> {
    const now = Date.now();
    const cached = rows.get(hash);
    if (cached && cached.until > now) return cached.row;
    return load().then((row) => {
      rows.delete(hash);
      if (row && !this.changing(row.id, now)) {
        if (rows.size >= MAX_ROWS) rows.clear();
        rows.set(hash, { row, until: now + ROW_TTL_MS });
      }
      return row;
    });
  }

  /** Whether the id was forgotten so recently that a change of its token may still be committing. */
  private changing(id: string, now: number): boolean {
    const at = this.forgotten.get(id);
    if (at === undefined) return false;
    if (now - at < ROW_TTL_MS) return true;
    this.forgotten.delete(id);
    return false;
  }

  private teamPrincipal(row: TeamTokenRow | null, hash: string, ip: () => string | null): TeamPrincipal {
    if (!row || !digestsEqual(row.token_hash, hash)) throw new UnauthenticatedError();
    this.touch(row.id, ip, (tx, now, address) => tx.teams.touchToken(row.id, now, address));
    return { kind: "team", teamId: row.id };
  }

  /** A named team token: its role's or its own permissions, its projects; refused once expired. */
  private namedPrincipal(row: TeamTokenAuthRow | null, hash: string, ip: () => string | null): TeamPrincipal {
    if (!row || !digestsEqual(row.token_hash, hash)) throw new UnauthenticatedError();
    if (row.expires_at !== null && Number(row.expires_at) <= Date.now()) throw new UnauthenticatedError("This token has expired.");
    this.touch(row.id, ip, (tx, now, address) => tx.teams.touchNamedToken(row.id, now, address));
    const access: Access =
      row.role !== null
        ? { ...accessOf(row.role, row.role_permissions, null), projects: projectsOf(row.project_ids) }
        : { permissions: new Set(permissionsOf(row.permissions)), projects: projectsOf(row.project_ids) };
    return { kind: "team", teamId: row.team_id, access, tokenId: row.id, role: row.role };
  }

  private projectPrincipal(row: ProjectTokenRow | null, hash: string, ip: () => string | null): ProjectPrincipal {
    if (!row || !digestsEqual(row.token_hash, hash)) throw new UnauthenticatedError();
    this.touch(row.id, ip, (tx, now, address) => tx.projects.touchToken(row.id, now, address));
    return { kind: "project", teamId: row.team_id, projectId: row.id, smtpEnabled: row.smtp_enabled === 1 };
  }

  private digest(token: string | null | undefined, prefix: string): string {
    // Team tokens also start with "ph_", so the kinds are told apart by the longer prefix.
    if (!token || token.length > 200 || !token.startsWith(prefix)) throw new UnauthenticatedError();
    if (prefix === "ph_" && token.startsWith("ph_team_")) throw new UnauthenticatedError();
    return sha256Hex(token);
  }

  /** Stamps the token's last use, at most once per TOUCH_INTERVAL_MS per id. */
  private touch(id: string, ip: () => string | null, stamp: (tx: Repositories, now: number, address: string | null) => Promise<void>): void {
    const now = Date.now();
    const last = this.touched.get(id);
    if (last !== undefined && now - last < TOUCH_INTERVAL_MS) return;
    this.touched.set(id, now);
    // Asked now, while the request is there to ask.
    const address = ip();
    // Outside the request's unit of work: a use is a use whatever the answer, and a slow handler must not hold this write.
    const { store } = this.deps;
    store
      .detached(() => store.write((tx) => stamp(tx, now, address)))
      .catch((err: unknown) => this.deps.log.warn("token last-used update failed", { error: String(err) }));
  }
}
