// Tables of the carriers issue (filled in by it).

export interface CarriersTables {}
