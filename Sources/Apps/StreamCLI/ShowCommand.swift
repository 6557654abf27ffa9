/// `stream show`: a host's and mods' calls on a live show from the terminal (OBS keys, moderation).
struct ShowCommand: Command {
    let name = "show"
    let summary = "A live show's OBS key (host) and moderation (host, mods)."
    let discussion = """
        SERVER is the server's HTTP(S) base URL, STREAM the stream name; the token (--token-stdin or
        --token-file, never an argument) says who you are. Refusals exit 1 with the server's code and reason
        (not_host, invalid, unauthorized...).
        """
    let subcommands: [any Command] = [ShowIngestCommand(), ShowModCommand()]
}
