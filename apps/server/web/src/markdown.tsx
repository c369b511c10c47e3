import { useEffect, useMemo, useState } from 'preact/hooks';

type Renderer = (text: string) => string;

let renderer: Renderer | undefined;
let loading: Promise<Renderer> | undefined;

/**
 * Loads the Markdown renderer (marked and DOMPurify, its own chunk). Called once at start, so it arrives
 * while the page waits for its data; every `Markdown` waits for the same load.
 */
export function loadMarkdown(): Promise<Renderer> {
  loading ??= import('./render-markdown').then((module) => {
    renderer = module.renderMarkdown;
    return renderer;
  });
  return loading;
}

/**
 * Rendered Markdown (sanitized) in a `div.markdown`. Until the renderer has loaded, the text is shown as
 * it is (`markdown-plain`, lines kept), never as HTML.
 */
export function Markdown({ text, class: className }: { text: string; class?: string }) {
  const [ready, setReady] = useState(renderer !== undefined);
  useEffect(() => {
    if (!ready) loadMarkdown().then(() => setReady(true));
  }, [ready]);
  const html = useMemo(() => (ready && renderer ? renderer(text) : undefined), [ready, text]);
  const classes = `markdown${className ? ` ${className}` : ''}`;
  if (html === undefined) return <div class={`${classes} markdown-plain`}>{text}</div>;
  return <div class={classes} dangerouslySetInnerHTML={{ __html: html }} />;
}
