import DOMPurify from 'dompurify';
import { Marked } from 'marked';

// One renderer for the page: GitHub-flavoured Markdown, line breaks kept as the model wrote them.
const marked = new Marked({ gfm: true, breaks: true, async: false });

/**
 * Markdown that a model or a user wrote, rendered by marked and then sanitized by DOMPurify (the text is
 * untrusted: no script, no event handler, no form, no inline style; links open nothing outside by themselves
 * under the page's CSP). Images are dropped: the CSP would block outside ones anyway, and a 1x1 image is a beacon.
 * Loaded as its own chunk (`markdown.tsx`): the two libraries are most of the console's script.
 */
export function renderMarkdown(text: string): string {
  const html = marked.parse(text) as string;
  return DOMPurify.sanitize(html, {
    FORBID_TAGS: ['img', 'style', 'form', 'input', 'button', 'iframe', 'svg', 'math'],
    FORBID_ATTR: ['style'],
  });
}
