package analytics

// EventColumns are the events table's columns in the sink's order.
var EventColumns = eventBlock().names()
