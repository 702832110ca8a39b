// Tables of the push issue (filled in by it).

export interface PushTables {}
