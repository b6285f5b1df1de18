import { createContext, type RouterContext } from "react-router";

/** What the Express entry knows about a request and hands to loaders, actions and rendering. */
export interface RequestInfo {
  request_id: string;
  /** The CSP nonce for this response's inline scripts. */
  nonce: string;
  /** The client's address as Express sees it (trust proxy decides whether X-Forwarded-For counts). */
  ip: string;
}

// server.ts and the React Router build are separate module graphs; a context key must be the
// same object in both, so it lives on globalThis.
const KEY = Symbol.for("mutual.requestInfoContext");
const holder = globalThis as { [KEY]?: RouterContext<RequestInfo> };
export const requestInfoContext: RouterContext<RequestInfo> = (holder[KEY] ??= createContext<RequestInfo>({
  request_id: "unknown",
  nonce: "",
  ip: "unknown",
}));
