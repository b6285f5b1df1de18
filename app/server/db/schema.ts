/**
 * The one PostgreSQL schema (SPEC 0, ARCHITECTURE "database"). Each area keeps its tables in its
 * own file; this file gathers them for Drizzle and drizzle-kit.
 */
export * from "./schema/public-site";
