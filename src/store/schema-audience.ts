// Tables of the audience issue (filled in by it).

export interface AudienceTables {}
