import { useEffect, useRef } from 'preact/hooks';
import type uPlot from 'uplot';

/** Series drawn as bars (uPlot's own bars path builder) rather than lines. */
const BARS = { size: [0.6, 40] as [number, number] };

/**
 * A uPlot chart in a `figure` (its own API draws it: options and aligned data, see uPlot's docs). uPlot is
 * loaded on first use (its own chunk). Series listed in `barSeries` are drawn as bars. Redrawn when `data`
 * changes; sized to its container's width.
 */
export function Chart({
  label,
  options,
  data,
  height = 200,
  barSeries = [],
}: {
  label: string;
  options: Omit<uPlot.Options, 'width' | 'height'>;
  data: uPlot.AlignedData;
  height?: number;
  /** Indexes in `options.series` drawn as bars. */
  barSeries?: readonly number[];
}) {
  const container = useRef<HTMLDivElement>(null);
  useEffect(() => {
    let plot: uPlot | undefined;
    let cancelled = false;
    import('./uplot-module').then(({ default: UPlot }) => {
      const element = container.current;
      if (cancelled || !element) return;
      const bars = UPlot.paths.bars?.(BARS);
      const series = options.series.map((entry, index) =>
        barSeries.includes(index) && bars ? { ...entry, paths: bars } : entry,
      );
      plot = new UPlot({ ...options, series, width: Math.max(element.clientWidth, 320), height }, data, element);
    });
    return () => {
      cancelled = true;
      plot?.destroy();
    };
  }, [options, data, height, barSeries]);
  return (
    <figure class="chart" aria-label={label}>
      <figcaption>{label}</figcaption>
      <div ref={container} />
    </figure>
  );
}

/** Series colours that read on both themes. */
export const COLORS = ['#4f7cff', '#2bb673', '#f0a202', '#e5484d', '#9b6cff', '#00a3a3', '#c2410c', '#6b7280'];
