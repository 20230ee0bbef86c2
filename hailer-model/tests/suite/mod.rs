mod bodies;
mod cancel;
mod exchange;
mod faults;
mod parsers;
mod secrets;
mod support;
