/**
 * The dashboard's charts: inline SVG drawn here, no chart library and nothing fetched (they work
 * offline). Every mark carries its figure (data-series, data-value) and a <title> for a tooltip,
 * and each chart has a legend in HTML naming its series with their totals.
 */

export interface Series {
  key: string;
  label: string;
  color: string;
  /** One value per date (null: no figure that day, e.g. a rate without a base). */
  values: (number | null)[];
}

const W = 720;
const H = 200;
const LEFT = 48;
const RIGHT = 8;
const TOP = 10;
const BOTTOM = 22;
const PLOT_W = W - LEFT - RIGHT;
const PLOT_H = H - TOP - BOTTOM;
const GRID = "#dde2e8";
const AXIS_TEXT = "#5f6b7a";

/** A round upper bound for the axis (1, 2, 5 × 10^n) and its ticks. */
function scaleOf(max: number, percent: boolean): { top: number; ticks: number[] } {
  if (percent) return { top: 1, ticks: [0, 0.25, 0.5, 0.75, 1] };
  if (max <= 0) return { top: 1, ticks: [0, 1] };
  const pow = 10 ** Math.floor(Math.log10(max));
  const top = [1, 2, 5, 10].map((m) => m * pow).find((v) => v >= max)!;
  // Whole-number ticks: 0..top by 1 up to 4, else fifths (of 5, 10, 20, 50 × 10^n).
  const step = top <= 4 ? 1 : top / 5;
  const ticks: number[] = [];
  for (let v = 0; v <= top + 1e-9; v += step) ticks.push(v);
  return { top, ticks };
}

const fmt = (v: number, percent: boolean) => (percent ? `${Math.round(v * 1000) / 10}%` : Number.isInteger(v) ? v.toLocaleString() : v.toFixed(1));
const dayLabel = (date: string) => date.slice(5); // MM-DD

function Axes({ dates, top, ticks, percent }: { dates: string[]; top: number; ticks: number[]; percent: boolean }) {
  const every = Math.max(1, Math.ceil(dates.length / 8));
  const slot = PLOT_W / Math.max(1, dates.length);
  return (
    <g class="axes">
      {ticks.map((t) => {
        const y = TOP + PLOT_H - (t / top) * PLOT_H;
        return (
          <g key={t}>
            <line x1={LEFT} x2={W - RIGHT} y1={y} y2={y} stroke={GRID} stroke-width={1} />
            <text x={LEFT - 6} y={y + 4} text-anchor="end" font-size={11} fill={AXIS_TEXT}>
              {fmt(t, percent)}
            </text>
          </g>
        );
      })}
      {dates.map((d, i) =>
        (i % every === 0 && i < dates.length - every / 2) || i === dates.length - 1 ? (
          <text key={d} x={LEFT + slot * i + slot / 2} y={H - 6} text-anchor="middle" font-size={11} fill={AXIS_TEXT}>
            {dayLabel(d)}
          </text>
        ) : null,
      )}
    </g>
  );
}

export function Legend({ series, percent = false }: { series: Series[]; percent?: boolean }) {
  return (
    <ul class="legend" style="list-style:none;display:flex;flex-wrap:wrap;gap:0.25rem 1rem;padding:0;margin:0.25rem 0 0">
      {series.map((s) => {
        const known = s.values.filter((v): v is number => v !== null);
        const total = percent ? null : known.reduce((a, b) => a + b, 0);
        return (
          <li key={s.key} data-series={s.key} data-total={total ?? undefined}>
            <span aria-hidden="true" style={`display:inline-block;width:0.8em;height:0.8em;border-radius:2px;margin-right:0.35em;background:${s.color}`} />
            {s.label}
            {total !== null ? <strong style="margin-left:0.35em">{total.toLocaleString()}</strong> : null}
          </li>
        );
      })}
    </ul>
  );
}

/**
 * Daily bars: side by side (grouped) or one on another (stacked). A bar is drawn only for a day
 * with a figure above 0, so an empty chart shows axes alone.
 */
export function BarChart({ title, dates, series, stacked = false }: { title: string; dates: string[]; series: Series[]; stacked?: boolean }) {
  const sums = dates.map((_, i) => (stacked ? series.reduce((n, s) => n + (s.values[i] ?? 0), 0) : Math.max(0, ...series.map((s) => s.values[i] ?? 0))));
  const { top, ticks } = scaleOf(Math.max(0, ...sums), false);
  const slot = PLOT_W / Math.max(1, dates.length);
  const inner = slot * 0.8;
  const barW = stacked ? inner : inner / series.length;
  const y = (v: number) => (v / top) * PLOT_H;
  return (
    <figure class="chart" data-chart={title} style="margin:0 0 1rem">
      <figcaption style="font-weight:600">{title}</figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} width="100%" role="img" aria-label={title} style="max-width:100%;height:auto;display:block">
        <Axes dates={dates} top={top} ticks={ticks} percent={false} />
        {dates.map((d, i) => {
          let base = 0;
          return (
            <g key={d} data-date={d}>
              {series.map((s, k) => {
                const v = s.values[i] ?? 0;
                if (v <= 0) return null;
                const h = Math.max(1, y(v));
                const x = LEFT + slot * i + (slot - inner) / 2 + (stacked ? 0 : barW * k);
                const yTop = TOP + PLOT_H - (stacked ? y(base) : 0) - h;
                if (stacked) base += v;
                return (
                  <rect key={s.key} data-series={s.key} data-date={d} data-value={v} x={x} y={yTop} width={Math.max(1, barW - (stacked ? 0 : 0.5))} height={h} fill={s.color}>
                    <title>{`${d} · ${s.label}: ${v.toLocaleString()}`}</title>
                  </rect>
                );
              })}
            </g>
          );
        })}
      </svg>
      <Legend series={series} />
    </figure>
  );
}

/** A rate per day (0..1) as a line with a dot per day that has one; a day without a base is a gap. */
export function RateChart({ title, dates, series }: { title: string; dates: string[]; series: Series[] }) {
  const slot = PLOT_W / Math.max(1, dates.length);
  const x = (i: number) => LEFT + slot * i + slot / 2;
  const y = (v: number) => TOP + PLOT_H - v * PLOT_H;
  return (
    <figure class="chart" data-chart={title} style="margin:0 0 1rem">
      <figcaption style="font-weight:600">{title}</figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} width="100%" role="img" aria-label={title} style="max-width:100%;height:auto;display:block">
        <Axes dates={dates} top={1} ticks={[0, 0.25, 0.5, 0.75, 1]} percent />
        {series.map((s) => {
          // Runs of consecutive days with a figure, each its own line.
          const runs: string[][] = [];
          let run: string[] = [];
          s.values.forEach((v, i) => {
            if (v === null) {
              if (run.length) runs.push(run);
              run = [];
            } else run.push(`${x(i).toFixed(1)},${y(v).toFixed(1)}`);
          });
          if (run.length) runs.push(run);
          return (
            <g key={s.key}>
              {runs.map((r, k) => (
                <polyline key={k} data-series={s.key} points={r.join(" ")} fill="none" stroke={s.color} stroke-width={2} />
              ))}
              {s.values.map((v, i) =>
                v === null ? null : (
                  <circle key={i} data-series={s.key} data-date={dates[i]} data-value={v} cx={x(i)} cy={y(v)} r={3.5} fill={s.color}>
                    <title>{`${dates[i]} · ${s.label}: ${fmt(v, true)}`}</title>
                  </circle>
                ),
              )}
            </g>
          );
        })}
      </svg>
      <Legend series={series} percent />
    </figure>
  );
}

export interface HBar {
  /** The group's name (a provider family, a bounce class). */
  label: string;
  /** Per series: the figure and where its bar links to. */
  values: Record<string, { value: number; href: string }>;
}

/** Horizontal bars per group, one per series, each a link (to the messages behind it). */
export function HBarChart({ title, groups, series }: { title: string; groups: HBar[]; series: Omit<Series, "values">[] }) {
  const max = Math.max(0, ...groups.flatMap((g) => Object.values(g.values).map((v) => v.value)));
  const rowH = 14;
  const groupH = rowH * series.length + 10;
  const labelW = 130;
  const barMax = W - labelW - 70;
  const height = Math.max(40, groups.length * groupH + 6);
  return (
    <figure class="chart" data-chart={title} style="margin:0 0 1rem">
      <figcaption style="font-weight:600">{title}</figcaption>
      {groups.length === 0 ? (
        <p class="muted">Nothing in this period.</p>
      ) : (
        <svg viewBox={`0 0 ${W} ${height}`} width="100%" role="img" aria-label={title} style="max-width:100%;height:auto;display:block">
          {groups.map((g, gi) => {
            const y0 = 4 + gi * groupH;
            return (
              <g key={g.label} data-group={g.label}>
                <text x={labelW - 8} y={y0 + (rowH * series.length) / 2 + 4} text-anchor="end" font-size={12} fill="#1c2430">
                  {g.label}
                </text>
                {series.map((s, k) => {
                  const v = g.values[s.key];
                  if (!v) return null;
                  const w = max === 0 ? 0 : (v.value / max) * barMax;
                  const y = y0 + k * rowH;
                  return (
                    <a key={s.key} href={v.href} aria-label={`${g.label} · ${s.label}: ${v.value.toLocaleString()}`}>
                      <rect data-series={s.key} data-group={g.label} data-value={v.value} x={labelW} y={y} width={v.value > 0 ? Math.max(2, w) : 0} height={rowH - 3} fill={s.color}>
                        <title>{`${g.label} · ${s.label}: ${v.value.toLocaleString()}`}</title>
                      </rect>
                      <text x={labelW + w + 6} y={y + rowH - 5} font-size={11} fill={AXIS_TEXT}>
                        {v.value.toLocaleString()}
                      </text>
                    </a>
                  );
                })}
              </g>
            );
          })}
        </svg>
      )}
      <Legend series={series.map((s) => ({ ...s, values: groups.map((g) => g.values[s.key]?.value ?? 0) }))} />
    </figure>
  );
}
