// The sign-in and member helpers now live in support.ts (one copy for every spec); this re-export
// keeps older imports working.
export * from "./support";
