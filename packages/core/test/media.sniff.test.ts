import { readFileSync } from "node:fs";
import { describe, expect, it } from "@jest/globals";
import {
  MEDIA_MAX_BYTES,
  STATIC_STICKER_MAX_BYTES,
  cleanFilename,
  isAnimatedWebp,
  mediaCap,
  normalizeMimeType,
  sniffMedia,
  tooLargeSentence,
} from "../src/media/index.ts";

// An upload's type is read from its first bytes (docs/decisions.md, "Upload streamed to Meta, type from bytes"):
// file-type's magic numbers for the real samples, and the three rules it cannot do alone (text, OLE2, OOXML).

const sample = (name: string) =>
  readFileSync(new URL(`../../../apps/provider-sandbox/src/media/samples/${name}`, import.meta.url));

const OLE2 = Buffer.concat([Buffer.from("d0cf11e0a1b11ae1", "hex"), Buffer.alloc(2048)]);
// A zip's local file header (a docx/xlsx/pptx is one) with a first entry that says nothing of Office.
const ZIP = Buffer.concat([
  Buffer.from("504b0304140000000800", "hex"),
  Buffer.alloc(16),
  Buffer.from([9, 0, 0, 0]),
  Buffer.from("_rels/a.x"),
  Buffer.alloc(512, 1),
]);
const GIF = Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64");

/** A WebP with a VP8X chunk whose flags byte (20) has the animation bit or not. */
function vp8x(animated: boolean): Buffer {
  const head = Buffer.alloc(64);
  head.write("RIFF", 0, "latin1");
  head.writeUInt32LE(56, 4);
  head.write("WEBP", 8, "latin1");
  head.write("VP8X", 12, "latin1");
  head.writeUInt32LE(10, 16);
  head[20] = animated ? 0x02 : 0x10;
  return head;
}

describe("sniffMedia: the type from the bytes", () => {
  it.each([
    ["image.jpg", "image/jpeg", "image"],
    ["image.png", "image/png", "image"],
    ["sticker.webp", "image/webp", "sticker"],
    ["document.pdf", "application/pdf", "document"],
    ["audio.ogg", "audio/ogg", "audio"],
    ["video.mp4", "video/mp4", "video"],
  ])("%s declared as %s is a %s", async (file, mimeType, type) => {
    expect(await sniffMedia({ head: sample(file), declaredType: mimeType })).toEqual({
      kind: "ok",
      mimeType,
      type,
      animated: false,
    });
    // A generic declared type lets the bytes decide.
    expect(await sniffMedia({ head: sample(file), declaredType: "application/octet-stream" })).toMatchObject({
      kind: "ok",
      mimeType,
    });
  });

  it("parameters and aliases of the declared type are dropped before comparing (audio/ogg; codecs=opus, image/jpg)", async () => {
    expect(normalizeMimeType("Audio/OGG; codecs=opus")).toBe("audio/ogg");
    expect(await sniffMedia({ head: sample("audio.ogg"), declaredType: "audio/ogg; codecs=opus" })).toMatchObject({
      kind: "ok",
      mimeType: "audio/ogg",
    });
    expect(await sniffMedia({ head: sample("image.jpg"), declaredType: "image/jpg" })).toMatchObject({ kind: "ok" });
  });

  it("bytes of another type than declared are a mismatch naming both", async () => {
    expect(await sniffMedia({ head: sample("image.png"), declaredType: "application/pdf" })).toEqual({
      kind: "mismatch",
      detected: "image/png",
      declared: "application/pdf",
    });
  });

  it("a GIF, random bytes and an Ogg without Opus are unsupported", async () => {
    expect(await sniffMedia({ head: GIF, declaredType: "image/gif" })).toEqual({
      kind: "unsupported",
      detected: "image/gif",
    });
    expect(await sniffMedia({ head: Buffer.from([0, 1, 2, 0xff, 0xfe, 0, 9]), declaredType: "image/png" })).toEqual({
      kind: "unsupported",
      detected: null,
    });
    const vorbis = Buffer.from(sample("audio.ogg"));
    const at = vorbis.indexOf("OpusHead");
    vorbis.write("\x01vorbis\0", at, "latin1");
    expect(await sniffMedia({ head: vorbis, declaredType: "audio/ogg" })).toMatchObject({ kind: "unsupported" });
  });

  it("text: valid UTF-8 without NUL is text/plain (a sequence cut by the head's end included); a NUL is not", async () => {
    const text = Buffer.from("Segunda via do boleto — vencimento 10/12\n".repeat(200), "utf8");
    expect(await sniffMedia({ head: text.subarray(0, 4_099), declaredType: "text/plain" })).toMatchObject({
      kind: "ok",
      mimeType: "text/plain",
      type: "document",
    });
    expect(await sniffMedia({ head: Buffer.from("abc\0def"), declaredType: "text/plain" })).toMatchObject({
      kind: "unsupported",
    });
    expect(await sniffMedia({ head: Buffer.from([0x61, 0xc3, 0x28]), declaredType: "text/plain" })).toMatchObject({
      kind: "unsupported",
    });
  });

  it("OLE2 is a Word/Excel/PowerPoint 97 file only when declared as one; a zip an OOXML file only when declared", async () => {
    for (const declared of ["application/msword", "application/vnd.ms-excel", "application/vnd.ms-powerpoint"])
      expect(await sniffMedia({ head: OLE2, declaredType: declared })).toMatchObject({
        kind: "ok",
        mimeType: declared,
      });
    expect(await sniffMedia({ head: OLE2, declaredType: "application/octet-stream" })).toMatchObject({
      kind: "unsupported",
    });
    const docx = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
    expect(await sniffMedia({ head: ZIP, declaredType: docx })).toMatchObject({ kind: "ok", mimeType: docx });
    expect(await sniffMedia({ head: ZIP, declaredType: "application/pdf" })).toMatchObject({ kind: "unsupported" });
  });

  it("an animated WebP (VP8X flag) gets the animated sticker cap, a static one 100 KB", () => {
    expect(isAnimatedWebp(vp8x(true))).toBe(true);
    expect(isAnimatedWebp(vp8x(false))).toBe(false);
    expect(isAnimatedWebp(sample("sticker.webp"))).toBe(false);
    expect(mediaCap("sticker", true)).toBe(500 * 1024);
    expect(mediaCap("sticker", false)).toBe(STATIC_STICKER_MAX_BYTES);
    expect(tooLargeSentence("sticker", false)).toBe(
      "O arquivo passa de 100 KB, o limite do WhatsApp para figurinhas estáticas.",
    );
    expect(tooLargeSentence("image")).toBe("O arquivo passa de 5 MB, o limite do WhatsApp para imagens.");
    expect(MEDIA_MAX_BYTES).toEqual({
      image: 5 * 1024 * 1024,
      audio: 16 * 1024 * 1024,
      video: 16 * 1024 * 1024,
      document: 100 * 1024 * 1024,
      sticker: 500 * 1024,
    });
  });

  it("file names keep their last segment, lose control characters and stop at 200 code points", () => {
    expect(cleanFilename("C:\\Users\\ana\\nota fiscal.pdf")).toBe("nota fiscal.pdf");
    expect(cleanFilename("../../etc/passwd")).toBe("passwd");
    expect(cleanFilename("a\u0000b\nc.pdf")).toBe("abc.pdf");
    expect(cleanFilename("   ")).toBeNull();
    expect(cleanFilename(`${"😀".repeat(250)}.pdf`)).toBe("😀".repeat(200));
  });
});
