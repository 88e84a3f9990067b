//! The UCI protocol front end (filled in below).
