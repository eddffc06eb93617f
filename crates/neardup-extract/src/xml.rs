//! XML parts of zip documents (DOCX, ODT, EPUB), read with quick-xml:
//! no DTD is processed and no entity beyond XML's five and character
//! references is expanded, so a billion-laughs file expands nothing.
