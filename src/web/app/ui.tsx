import type { ComponentChildren, JSX } from "preact";
import { useCallback, useEffect, useState } from "preact/hooks";
import { ApiError } from "./api.ts";

/** The hash route: `#/messages/ID?filter[subject]=x` → path parts and query. */
export interface Route {
  parts: string[];
  query: URLSearchParams;
}

const routeOf = (hash: string): Route => {
  const [path = "", qs = ""] = hash.replace(/^#\/?/, "").split("?");
  return { parts: path.split("/").filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(qs) };
};

export function useRoute(): Route {
  const [route, setRoute] = useState(() => routeOf(location.hash));
  useEffect(() => {
    const on = () => setRoute(routeOf(location.hash));
    addEventListener("hashchange", on);
    return () => removeEventListener("hashchange", on);
  }, []);
  return route;
}

export const go = (path: string) => {
  location.hash = `#${path}`;
};

export interface Loaded<T> {
  data: T | null;
  error: string | null;
  loading: boolean;
  reload: () => void;
}

/** Loads `fn` when `deps` change; `reload` loads again. */
export function useLoad<T>(fn: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | null; error: string | null; loading: boolean }>({ data: null, error: null, loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    fn().then(
      (data) => live && setState({ data, error: null, loading: false }),
      (err: unknown) => live && setState({ data: null, error: messageOf(err), loading: false }),
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { ...state, reload };
}

/** A view's actions as useActions runs them. */
export interface Actions {
  /** True while one runs (its buttons are disabled). */
  busy: boolean;
  /** The last action's error; cleared when the next one starts. */
  error: string | null;
  /** What the last action reported (the text it returned); cleared when the next one starts. */
  notice: string | null;
  run: (fn: () => Promise<string | void>) => Promise<void>;
}

/**
 * The runner every view's actions go through: busy while one runs, its error or its notice shown,
 * and `after` (the view's data read again) once it succeeded.
 */
export function useActions(after: () => void): Actions {
  const [state, setState] = useState<Omit<Actions, "run">>({ busy: false, error: null, notice: null });
  const run = async (fn: () => Promise<string | void>) => {
    setState({ busy: true, error: null, notice: null });
    try {
      const notice = await fn();
      setState({ busy: false, error: null, notice: notice ?? null });
      after();
    } catch (err) {
      setState({ busy: false, error: messageOf(err), notice: null });
    }
  };
  return { ...state, run };
}

export const messageOf = (err: unknown): string => {
  if (err instanceof ApiError) {
    const fields = Object.values(err.errors).flat();
    return fields.length > 1 ? `${err.message} ${fields.slice(1).join(" ")}` : err.message;
  }
  return err instanceof Error ? err.message : String(err);
};

export const fmtDate = (iso: string | null | undefined): string => (iso ? new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" }) : "—");

export const ErrorBox = ({ error }: { error: string | null }) =>
  error ? (
    <p class="error" role="alert">
      {error}
    </p>
  ) : null;

/** What an action did, announced to screen readers. */
export const Notice = ({ notice }: { notice: string | null }) =>
  notice ? (
    <p class="notice" role="status">
      {notice}
    </p>
  ) : null;

export const Loading = () => <p class="muted">Loading…</p>;

export function Status({ status }: { status: string }) {
  return <span class={`status status-${status.replace(/[^a-z_]/g, "")}`}>{status.replace(/_/g, " ")}</span>;
}

export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setDone(true);
      setTimeout(() => setDone(false), 1500);
    } catch {
      window.prompt("Copy this value:", text);
    }
  };
  return (
    <button type="button" class="small" onClick={copy} aria-label={`${label}: ${text.slice(0, 40)}`}>
      {done ? "Copied" : label}
    </button>
  );
}

let fieldIds = 0;

/** A labelled input: the label names it for screen readers and a click focuses it. */
export function Field(props: { label: string; hint?: string; children?: ComponentChildren } & JSX.InputHTMLAttributes<HTMLInputElement>) {
  const { label, hint, children, ...input } = props;
  const [id] = useState(() => `f${++fieldIds}`);
  // A control of one's own (a select, a textarea) is labelled by wrapping it.
  if (children) {
    return (
      <label class="field">
        <span>{label}</span>
        {children}
      </label>
    );
  }
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} {...input} aria-describedby={hint ? `${id}-hint` : undefined} />
      {hint ? (
        <small id={`${id}-hint`} class="muted">
          {hint}
        </small>
      ) : null}
    </div>
  );
}

/** Cursor pages: the cursor is kept in the route's query so Back works. */
export function Pager({ next, prev, onPage }: { next: string | null; prev: string | null; onPage: (cursor: string | null) => void }) {
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={!prev} onClick={() => onPage(prev)}>
        ← Newer
      </button>
      <button type="button" disabled={!next} onClick={() => onPage(next)}>
        Older →
      </button>
    </nav>
  );
}

/** A secret shown once (tokens, webhook secrets, password links). */
export function ShownOnce({ label, value }: { label: string; value: string }) {
  return (
    <div class="once" role="status">
      <strong>{label}</strong> — shown once, store it now:
      <div class="row">
        <code class="secret">{value}</code>
        <CopyButton text={value} />
      </div>
    </div>
  );
}

export function Section({ title, actions, children }: { title: string; actions?: ComponentChildren; children: ComponentChildren }) {
  return (
    <section>
      <div class="section-head">
        <h2>{title}</h2>
        <div class="actions">{actions}</div>
      </div>
      {children}
    </section>
  );
}

/** A list's error (or the page's own) and its first load. */
export function ListStatus({ list, error }: { list: Loaded<unknown>; error?: string | null }) {
  return (
    <>
      <ErrorBox error={error ?? list.error} />
      {list.loading && !list.data ? <Loading /> : null}
    </>
  );
}
