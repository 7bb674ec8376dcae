/**
 * Attachments refused on send: executables, installers, scripts and disk images, the kinds mail
 * providers drop or quarantine (Gmail's list, roughly) and malware travels in. An attachment is
 * refused by the extension of its file name (the last one: `invoice.pdf.exe` is an .exe) or by the
 * content_type it was given. `GET /v1/blocked-file-types` lists both, as Lettermint's does.
 */
export const BLOCKED_EXTENSIONS: readonly string[] = [
  "ade", "adp", "apk", "app", "appx", "appxbundle", "bat", "cab", "chm", "cmd", "com", "cpl", "dll", "dmg", "exe",
  "hta", "ins", "iso", "isp", "jar", "jnlp", "js", "jse", "lib", "lnk", "mde", "msc", "msi", "msix", "msixbundle",
  "msp", "mst", "nsh", "pif", "ps1", "scr", "sct", "shb", "sys", "vb", "vbe", "vbs", "vhd", "vhdx", "vxd", "wsc",
  "wsf", "wsh", "xll",
];

export const BLOCKED_MIME_TYPES: readonly string[] = [
  "application/java-archive",
  "application/vnd.android.package-archive",
  "application/vnd.microsoft.portable-executable",
  "application/x-apple-diskimage",
  "application/x-bat",
  "application/x-dosexec",
  "application/x-iso9660-image",
  "application/x-ms-installer",
  "application/x-ms-shortcut",
  "application/x-msdos-program",
  "application/x-msdownload",
  "application/x-msi",
  "application/hta",
];

const extensions = new Set(BLOCKED_EXTENSIONS);
const mimeTypes = new Set(BLOCKED_MIME_TYPES);

/** Why an attachment is refused (the field and the sentence of a 422), or null when it may go. */
export function blockedAttachment(filename: unknown, contentType: unknown): { field: "filename" | "content_type"; message: string } | null {
  if (typeof filename === "string") {
    // Trailing dots and spaces are dropped by Windows when the file is saved: "a.exe. " is an .exe.
    const name = filename.trim().replace(/[.\s]+$/, "").toLowerCase();
    const dot = name.lastIndexOf(".");
    const ext = dot === -1 ? "" : name.slice(dot + 1);
    if (extensions.has(ext)) return { field: "filename", message: `Attachments of type .${ext} are not allowed (see GET /v1/blocked-file-types).` };
  }
  if (typeof contentType === "string") {
    const type = contentType.split(";")[0]!.trim().toLowerCase();
    if (mimeTypes.has(type)) return { field: "content_type", message: `Attachments of type ${type} are not allowed (see GET /v1/blocked-file-types).` };
  }
  return null;
}
