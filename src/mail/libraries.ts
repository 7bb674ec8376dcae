/**
 * mailparser and mailauth take ~275 ms to load, most of the binary's start-up. They are loaded
 * on first use instead, so the API answers at once and only the first message received pays it.
 */
let mailparser: Promise<typeof import("mailparser")> | null = null;
let mailauth: Promise<typeof import("mailauth")> | null = null;

export const loadMailparser = () => (mailparser ??= import("mailparser"));
export const loadMailauth = () => (mailauth ??= import("mailauth"));
