// The messages the C library prints for the errno names the taxonomy reads
// (builtin-rules/exception-taxonomy.json, "errno"), in English and in the languages a
// host's locale may print them in: the JVM passes strerror's text on in an IOException's
// message (`java.io.IOException: Zu viele offene Dateien` on a German host), so the code is
// read whatever the language (docs/design.md, "Exceptions and codes").
//
// English: errno(3), https://man7.org/linux/man-pages/man3/errno.3.html; glibc's messages,
// https://sourceware.org/git/?p=glibc.git;a=blob;f=sysdeps/gnu/errlist.h; getaddrinfo's,
// https://man7.org/linux/man-pages/man3/gai_strerror.3.html; the JDK's own `Connection
// reset`; musl's `Host is unreachable` and `Name does not resolve`. German, French and
// Chinese: glibc 2.36's translations of the same messages (po/de.po, po/fr.po, po/zh_CN.po,
// https://sourceware.org/git/?p=glibc.git;a=tree;f=po), copied as glibc ships them.
// Windows: the system's own messages for its socket errors, which the JDK passes on from
// FormatMessage on a Windows host (asynchronous channels, `sun.nio.ch.Iocp`): Windows Sockets
// error codes, https://learn.microsoft.com/en-us/windows/win32/winsock/windows-sockets-error-codes-2,
// and system error codes 1000-1299,
// https://learn.microsoft.com/en-us/windows/win32/debug/system-error-codes--1000-1299-; each
// is read as the POSIX name of the same failure (WSAECONNREFUSED and ERROR_CONNECTION_REFUSED
// are ECONNREFUSED).
//
// Longer messages first: the first that a message holds names the errno, so "Too many open
// files in system" (ENFILE) comes before "Too many open files" (EMFILE), in every language.

export const errnoTexts: ReadonlyArray<readonly [name: string, text: string]> = [
  ['ENFILE', 'Too many open files in system'],
  ['ENFILE', 'Zu viele offene Dateien im System'], // de
  ['ENFILE', 'Trop de fichiers ouverts dans le système'], // fr
  ['ENFILE', '系统中打开的文件过多'], // zh_CN
  ['EMFILE', 'Too many open files'],
  ['EMFILE', 'Zu viele offene Dateien'], // de
  ['EMFILE', 'Trop de fichiers ouverts'], // fr
  ['EMFILE', '打开的文件过多'], // zh_CN
  ['ECONNREFUSED', 'Connection refused'],
  ['ECONNREFUSED', 'Verbindungsaufbau abgelehnt'], // de
  ['ECONNREFUSED', 'Connexion refusée'], // fr
  ['ECONNREFUSED', '拒绝连接'], // zh_CN
  ['ECONNREFUSED', 'No connection could be made because the target machine actively refused it'], // Windows 10061
  ['ECONNREFUSED', 'The remote computer refused the network connection'], // Windows 1225
  ['ECONNRESET', 'Connection reset'],
  ['ECONNRESET', 'Die Verbindung wurde vom Kommunikationspartner zurückgesetzt'], // de
  ['ECONNRESET', 'Connexion ré-initialisée par le correspondant'], // fr
  ['ECONNRESET', '连接被对方重设'], // zh_CN
  ['ECONNRESET', 'An existing connection was forcibly closed by the remote host'], // Windows 10054
  ['ETIMEDOUT', 'Connection timed out'],
  ['ETIMEDOUT', 'Die Wartezeit für die Verbindung ist abgelaufen'], // de
  ['ETIMEDOUT', "Connexion terminée par expiration du délai d'attente"], // fr
  ['ETIMEDOUT', '连接超时'], // zh_CN
  ['ETIMEDOUT', 'the connected party did not properly respond after a period of time'], // Windows 10060
  ['ETIMEDOUT', 'The semaphore timeout period has expired'], // Windows 121
  ['EHOSTUNREACH', 'No route to host'],
  ['EHOSTUNREACH', 'Host is unreachable'],
  ['EHOSTUNREACH', 'Keine Route zum Zielrechner'], // de
  ['EHOSTUNREACH', "Aucun chemin d'accès pour atteindre l'hôte cible"], // fr
  ['EHOSTUNREACH', '没有到主机的路由'], // zh_CN
  ['EHOSTUNREACH', 'A socket operation was attempted to an unreachable host'], // Windows 10065
  ['ENETUNREACH', 'Network is unreachable'],
  ['ENETUNREACH', 'Das Netzwerk ist nicht erreichbar'], // de
  ['ENETUNREACH', "Le réseau n'est pas accessible"], // fr
  ['ENETUNREACH', '网络不可达'], // zh_CN
  ['ENETUNREACH', 'A socket operation was attempted to an unreachable network'], // Windows 10051
  ['ENETUNREACH', 'The network location cannot be reached'], // Windows 1231, 1232
  ['EPIPE', 'Broken pipe'],
  ['EPIPE', 'Datenübergabe unterbrochen (broken pipe)'], // de
  ['EPIPE', 'Relais brisé (pipe)'], // fr
  ['EPIPE', '断开的管道'], // zh_CN
  ['ENOSPC', 'No space left on device'],
  ['ENOSPC', 'Auf dem Gerät ist kein Speicherplatz mehr verfügbar'], // de
  ['ENOSPC', 'Aucun espace disponible sur le périphérique'], // fr
  ['ENOSPC', '设备上没有空间'], // zh_CN
  ['EDQUOT', 'Disk quota exceeded'],
  ['EDQUOT', 'Der zugewiesene Plattenplatz (Quota) ist überschritten'], // de
  ['EDQUOT', "Débordement du quota d'espace disque"], // fr
  ['EDQUOT', '超出磁盘限额'], // zh_CN
  ['EROFS', 'Read-only file system'],
  ['EROFS', 'Das Dateisystem ist nur lesbar'], // de
  ['EROFS', 'Système de fichiers accessible en lecture seulement'], // fr
  ['EROFS', '只读文件系统'], // zh_CN
  ['EADDRINUSE', 'Address already in use'],
  ['EADDRINUSE', 'Die Adresse wird bereits verwendet'], // de
  ['EADDRINUSE', 'Adresse déjà utilisée'], // fr
  ['EADDRINUSE', '地址已在使用'], // zh_CN
  ['EADDRINUSE', 'Only one usage of each socket address'], // Windows 10048
  ['EACCES', 'Permission denied'],
  ['EADDRNOTAVAIL', 'Cannot assign requested address'],
  ['EADDRNOTAVAIL', 'Die angeforderte Adresse kann nicht zugewiesen werden'], // de
  ['EADDRNOTAVAIL', "Ne peut attribuer l'adresse demandée"], // fr
  ['EADDRNOTAVAIL', '无法指定被请求的地址'], // zh_CN
  ['EADDRNOTAVAIL', 'The requested address is not valid in its context'], // Windows 10049
  ['ENOMEM', 'Cannot allocate memory'],
  ['ENOMEM', 'Nicht genügend Hauptspeicher verfügbar'], // de
  ['ENOMEM', 'Ne peut allouer de la mémoire'], // fr
  ['ENOMEM', '无法分配内存'], // zh_CN
  ['EAI_NONAME', 'Name or service not known'],
  ['EAI_NONAME', 'nodename nor servname provided, or not known'],
  ['EAI_NONAME', 'Name does not resolve'],
  ['EAI_NONAME', 'Der Name oder der Dienst ist nicht bekannt'], // de
  ['EAI_NONAME', 'Nom ou service inconnu'], // fr
  ['EAI_NONAME', '未知的名称或服务'], // zh_CN
  ['EAI_NONAME', 'No such host is known'], // Windows 11001 (WSAHOST_NOT_FOUND)
  ['EAI_AGAIN', 'Temporary failure in name resolution'],
  ['EAI_AGAIN', 'Temporärer Fehler bei der Namensauflösung'], // de
  ['EAI_AGAIN', 'Échec temporaire dans la résolution du nom'], // fr
  ['EAI_AGAIN', '域名解析暂时失败'], // zh_CN
  ['EAI_NODATA', 'No address associated with hostname'],
  ['EAI_NODATA', 'Zu diesem Hostnamen gehört keine Adresse'], // de
  ['EAI_NODATA', "Aucune adresse associée avec le nom de l'hôte"], // fr
  ['EAI_NODATA', '没有与主机名关联的地址'], // zh_CN
]

// An errno written as its number (`errno=24`), for the names above whose number is the same on
// Linux (include/uapi/asm-generic/errno-base.h, https://github.com/torvalds/linux) and on the
// BSDs and macOS (sys/sys/errno.h, https://github.com/freebsd/freebsd-src): the two tables
// agree on 1-34 but 11 (EAGAIN on Linux, EDEADLK on the BSDs). Above 34 the same number names
// other errnos (ECONNREFUSED is 111 on Linux, 61 on the BSDs), so those are not read.
export const errnoNumbers: Readonly<Record<string, string>> = {
  '12': 'ENOMEM',
  '13': 'EACCES',
  '23': 'ENFILE',
  '24': 'EMFILE',
  '28': 'ENOSPC',
  '30': 'EROFS',
  '32': 'EPIPE',
}
