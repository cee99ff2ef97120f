/**
 * `Content-Disposition` for a file the gateway hands out (RFC 6266): an ASCII fallback `filename` (anything else, a
 * quote or a backslash replaced by `_`) and the UTF-8 name in `filename*`.
 */
export function contentDisposition(kind: "inline" | "attachment", filename: string | null): string {
  if (!filename) return kind;
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, "_");
  // RFC 8187's attr-char has no ' ( ) *, which encodeURIComponent leaves as they are.
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
