import type { SqlExecutor } from "./sql.ts";

/** One row of blocklist_status: a target's state in one zone (src/deliverability/blocklist-check.ts). */
export interface BlocklistRow {
  target: string;
  zone: string;
  kind: "ip" | "domain";
  listed: boolean;
  code: string | null;
  meaning: string | null;
  since: number;
  checked_at: number;
}

type Raw = Omit<BlocklistRow, "listed" | "since" | "checked_at"> & { listed: number; since: number | string; checked_at: number | string };
const row = (r: Raw): BlocklistRow => ({ ...r, listed: Number(r.listed) === 1, since: Number(r.since), checked_at: Number(r.checked_at) });

/** The blocklist state of the server's addresses and the sending domains, per zone. */
export class BlocklistRepository {
  constructor(private readonly db: SqlExecutor) {}

  /** Every state on record, by target and zone. */
  async all(): Promise<BlocklistRow[]> {
    return (await this.db.all<Raw>("SELECT target, zone, kind, listed, code, meaning, since, checked_at FROM blocklist_status ORDER BY target, zone")).map(row);
  }

  /** The states of the given targets (addresses or domain names). */
  async ofTargets(targets: string[]): Promise<BlocklistRow[]> {
    if (targets.length === 0) return [];
    const marks = targets.map(() => "?").join(", ");
    return (await this.db.all<Raw>(`SELECT target, zone, kind, listed, code, meaning, since, checked_at FROM blocklist_status WHERE target IN (${marks}) ORDER BY target, zone`, targets)).map(row);
  }

  /** Writes a target's state in a zone (insert or replace). */
  async put(r: BlocklistRow): Promise<void> {
    await this.db.run(
      `INSERT INTO blocklist_status (target, zone, kind, listed, code, meaning, since, checked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (target, zone) DO UPDATE SET kind = excluded.kind, listed = excluded.listed, code = excluded.code, meaning = excluded.meaning,
         since = excluded.since, checked_at = excluded.checked_at`,
      [r.target, r.zone, r.kind, r.listed ? 1 : 0, r.code, r.meaning, r.since, r.checked_at],
    );
  }

  /** Drops the states of targets no longer checked (a zone removed from the settings, a domain deleted, an address gone). */
  async removeExcept(keep: { target: string; zone: string }[]): Promise<number> {
    const keys = new Set(keep.map((k) => `${k.target}\u0000${k.zone}`));
    let removed = 0;
    for (const r of await this.all()) {
      if (keys.has(`${r.target}\u0000${r.zone}`)) continue;
      removed += (await this.db.run("DELETE FROM blocklist_status WHERE target = ? AND zone = ?", [r.target, r.zone])).changes;
    }
    return removed;
  }

  /** The distinct names of the verified (active) domains and the teams owning each. */
  async sendingDomains(): Promise<{ domain: string; team_id: string }[]> {
    return this.db.all<{ domain: string; team_id: string }>("SELECT DISTINCT domain, team_id FROM domains WHERE status = 'active' ORDER BY domain, team_id");
  }

  /** Teams with at least one domain: the teams sending through the server's shared addresses. */
  async sendingTeams(): Promise<string[]> {
    return (await this.db.all<{ team_id: string }>("SELECT DISTINCT team_id FROM domains ORDER BY team_id")).map((r) => r.team_id);
  }

  /** The domain names of a team. */
  async teamDomains(teamId: string): Promise<string[]> {
    return (await this.db.all<{ domain: string }>("SELECT DISTINCT domain FROM domains WHERE team_id = ? ORDER BY domain", [teamId])).map((r) => r.domain);
  }
}
