/// The bytes of a text with CRLF line ends written as "\r\n".
func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
