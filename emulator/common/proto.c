/**
 * @file proto.c
 * @brief Sending and receiving protocol messages (see proto.h).
 */
#define _GNU_SOURCE
#include "proto.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "alloc.h"

/* Write every byte of @p iov (modified as it goes); the descriptor rides on the first chunk. */
static int send_all(int sock, struct iovec *iov, int n, int pass_fd)
{
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } ctl;
    while (n > 0) {
        struct msghdr mh = {.msg_iov = iov, .msg_iovlen = (size_t)n};
        if (pass_fd >= 0) {
            memset(&ctl, 0, sizeof ctl);
            mh.msg_control = ctl.buf;
            mh.msg_controllen = sizeof ctl.buf;
            struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
            c->cmsg_level = SOL_SOCKET;
            c->cmsg_type = SCM_RIGHTS;
            c->cmsg_len = CMSG_LEN(sizeof(int));
            memcpy(CMSG_DATA(c), &pass_fd, sizeof(int));
        }
        ssize_t sent = sendmsg(sock, &mh, MSG_NOSIGNAL);
        if (sent < 0 && errno == EINTR)
            continue;
        if (sent <= 0)
            return -1;
        pass_fd = -1;
        size_t left = (size_t)sent;
        while (n > 0 && left >= iov->iov_len) {
            left -= iov->iov_len;
            iov++;
            n--;
        }
        if (n > 0) {
            iov->iov_base = (char *)iov->iov_base + left;
            iov->iov_len -= left;
        }
    }
    return 0;
}

int proto_send(int sock, uint32_t op, const struct iovec *parts, int nparts, int pass_fd)
{
    struct iovec iov[8];
    struct proto_head head = {op, 0};
    size_t total = 0;
    if (nparts > 7)
        return -1;
    iov[0] = (struct iovec){&head, sizeof head};
    for (int i = 0; i < nparts; i++) {
        iov[i + 1] = parts[i];
        total += parts[i].iov_len;
    }
    if (total > PROTO_MAX_PAYLOAD)
        return -1;
    head.len = (uint32_t)total;
    return send_all(sock, iov, nparts + 1, pass_fd);
}

/* Read exactly @p len bytes. */
static int read_all(int sock, void *buf, size_t len)
{
    char *p = buf;
    while (len > 0) {
        ssize_t got = read(sock, p, len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        p += got;
        len -= (size_t)got;
    }
    return 0;
}

int proto_recv(int sock, struct proto_msg *msg)
{
    struct proto_head head;
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } ctl;
    struct iovec iov = {&head, sizeof head};
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
    memset(msg, 0, sizeof *msg);
    msg->fd = -1;
    mh.msg_control = ctl.buf;
    mh.msg_controllen = sizeof ctl.buf;
    ssize_t got;
    do
        got = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC | MSG_WAITALL);
    while (got < 0 && errno == EINTR);
    if (got != (ssize_t)sizeof head || head.len > PROTO_MAX_PAYLOAD)
        return -1;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
            memcpy(&msg->fd, CMSG_DATA(c), sizeof(int));
    msg->op = head.op;
    msg->len = head.len;
    if (head.len == 0)
        return 0;
    msg->data = emu_malloc((size_t)head.len + 1);
    if (read_all(sock, msg->data, head.len)) {
        free(msg->data);
        msg->data = NULL;
        return -1;
    }
    msg->data[head.len] = 0;
    return 0;
}
